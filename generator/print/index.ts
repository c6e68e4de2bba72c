export { GeneratedFile, type FileHeader } from './generated-file.js';
export { camelCase, pascalCase, tsKey, tsLiteral, tsString, tsValue } from './ts-syntax.js';
