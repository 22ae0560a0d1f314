// relayflow's version, as the OpenAPI document and logs tell it. A constant (dist/ has no package.json beside it);
// test/common/version.test.ts holds it to package.json's.
export const RELAYFLOW_VERSION = '1.0.0';
