export { GeneratedFile, type ModuleRef } from './generated-file.js';
export { DataFile, type OutputFile } from './data-file.js';
export type { FileHeader } from './header.js';
export { camelCase, pascalCase, tsKey, tsLiteral, tsString, tsValue } from './ts-syntax.js';
