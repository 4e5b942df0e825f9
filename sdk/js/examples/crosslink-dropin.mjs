// crosslink-dropin.mjs: Crosslink's conformance run, with referee's corpus.
// The one change from @crosslink/conformance is the import (and the await):
// the same ProtocolAdapter object, the same report shape.

import { runConformance } from "@refereehq/referee/crosslink";
import { adapter } from "./crosslink-codec.js";

const report = await runConformance(adapter);
if (report.failed) {
  console.error(JSON.stringify(report.failures, null, 2));
  process.exit(1);
}
console.log(`${report.passed} checks passed (referee ${report.report.tool.version}, corpus ${report.report.suite.corpus})`);
