export { typecheckDir } from './typecheck.js';
export { tempTree } from './temp-schemas.js';
