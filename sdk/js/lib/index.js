// @refereehq/referee: the referee binary for Node.js, the adapter protocol
// as a library, and runConformance.

export {
  AdapterError,
  PROTOCOL,
  createHandler,
  describe,
  errorMessage,
  fromHex,
  opNames,
  serveAdapter,
  serveAdapterHttp,
  toHex,
} from "./adapter.js";
export { PLATFORMS, findBinary, locateBinary, platformKey, platformPackage } from "./binary.js";
export { RefereeError } from "./errors.js";
export { REPORT_FORMAT, refereeVersion, runConformance, runReferee } from "./run.js";
