import { benchAdmission } from './admission.js';
import { benchAuth } from './auth.js';
import { benchClient } from './client.js';
import { benchApply } from './apply.js';
import { benchAudit } from './audit.js';
import { benchCel } from './cel.js';
import { benchCli } from './cli.js';
import { benchCodegen } from './codegen.js';
import { benchController } from './controller.js';
import { benchDocuments } from './documents.js';
import { benchEtcd } from './etcd.js';
import { benchLargeWrites } from './large-writes.js';
import { benchMedia } from './media.js';
import { benchProtobuf } from './protobuf.js';
import { benchRegex } from './regex.js';
import { benchReplicas } from './replicas.js';
import { benchScale } from './scale.js';
import { benchServer } from './server.js';
import { benchTestServer } from './test-server.js';
import { benchValidate } from './validate.js';

/** `npm run bench [-- <name>...]`: every benchmark, or the named ones. */
const benches: Record<string, () => Promise<void>> = {
  admission: benchAdmission,
  apply: benchApply,
  audit: benchAudit,
  auth: benchAuth,
  client: benchClient,
  cel: benchCel,
  cli: benchCli,
  codegen: benchCodegen,
  controller: benchController,
  documents: benchDocuments,
  etcd: benchEtcd,
  'large-writes': benchLargeWrites,
  media: benchMedia,
  protobuf: benchProtobuf,
  regex: benchRegex,
  replicas: benchReplicas,
  scale: benchScale,
  server: benchServer,
  'test-server': benchTestServer,
  validate: benchValidate,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length === 0 || wanted.includes(name)) await run();
}
