/** Files and folders private to the server's user (store, keys, certificates, generated code). */
export { NotPrivateError, checkSecretFile, narrowExisting, privateFile, privateFolder } from './private-files.js';
