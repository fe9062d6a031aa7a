// A @kubernetes/client-node informer on the Services of `default`, run as a child process by
// watch-drop.test.ts (so the test can stop it with SIGSTOP): prints one JSON line per event,
// and restarts after an error as client-node documents.
import { CoreV1Api, KubeConfig, makeInformer, type V1Service } from "@kubernetes/client-node";

const kubeconfig = process.argv[2];
if (!kubeconfig) throw new Error("usage: informer-child.ts KUBECONFIG");
const config = new KubeConfig();
config.loadFromFile(kubeconfig);
const api = config.makeApiClient(CoreV1Api);
const informer = makeInformer(config, "/api/v1/namespaces/default/services", () =>
  api.listNamespacedService({ namespace: "default" }),
);
const report = (event: string, service?: V1Service) =>
  process.stdout.write(
    `${JSON.stringify({
      event,
      name: service?.metadata?.name,
      resourceVersion: service?.metadata?.resourceVersion,
    })}\n`,
  );
informer.on("add", (s) => report("add", s));
informer.on("update", (s) => report("update", s));
informer.on("delete", (s) => report("delete", s));
informer.on("error", (err: unknown) => {
  process.stdout.write(`${JSON.stringify({ event: "error", message: String(err) })}\n`);
  setTimeout(() => void informer.start(), 200);
});
await informer.start();
report("started");
