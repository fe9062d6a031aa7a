// `npm run bench:traffic`: figures of issue #12's real traffic and metrics path, one section each.
import { benchAdapter } from "./traffic-adapter.js";
import { benchNetwork } from "./traffic-network.js";

const log = (line: string) => console.log(line);
await benchNetwork(log);
await benchAdapter(log);
