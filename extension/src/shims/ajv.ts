// SPDX-License-Identifier: GPL-3.0-or-later
//
// Stands in for Ajv in the bundle. The SDK constructs Ajv only when no
// jsonSchemaValidator is passed; this provider always passes the Cloudflare
// worker validator, so reaching this is a bug and says so.

export class Ajv {
  constructor () {
    throw new Error('Ajv is not bundled: pass CfWorkerJsonSchemaValidator as jsonSchemaValidator');
  }
}
export default Ajv;
