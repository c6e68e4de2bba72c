export { GeneratedFile } from './generated-file.js';
export type { FileHeader } from './header.js';
export { DataFile, type OutputFile } from './data-file.js';
export { camelCase, pascalCase, tsKey, tsLiteral, tsString, tsValue } from './ts-syntax.js';
