export { GeneratedFile, type FileHeader } from './generated-file.js';
export { DataFile, type OutputFile } from './data-file.js';
export { camelCase, pascalCase, tsKey, tsLiteral, tsString, tsValue } from './ts-syntax.js';
