export { GeneratedFile, type FileHeader } from './generated-file.js';
export { camelCase, pascalCase, tsKey, tsLiteral, tsString } from './ts-syntax.js';
