// crosslink.test.mjs: referee's crosslink suite as node:test tests, one per
// check. Run it with: node --test crosslink.test.mjs

import { crosslinkOps } from "@refereehq/referee/crosslink";
import { conformanceTests } from "@refereehq/referee/test";
import { adapter } from "./crosslink-codec.js";

conformanceTests("crosslink", crosslinkOps(adapter));
