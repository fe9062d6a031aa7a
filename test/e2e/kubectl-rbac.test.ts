// End to end with the REAL kubectl (1.27, 1.33): service accounts and their tokens, and RBAC
// enforced for them. Every namespace has a `default` ServiceAccount; `kubectl create token`
// issues a token that authenticates as its account; with a kubeconfig holding it, requests
// RBAC does not allow fail with upstream's Forbidden message; `kubectl auth can-i` answers
// yes/no with kubectl's exit codes, `--list` prints the rules, `whoami` the user; `--as` runs a
// request as another user (impersonation); the admin token keeps full access. Without kubectl
// the cases skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { renderKubeconfig, writeKubeconfig } from "../../src/apiserver/kubeconfig.js";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

const BOT = "system:serviceaccount:team:bot";

for (const binary of kubectlsUnderTest("kubectl-rbac", { versionedOnly: true })) {
  describeRbac(binary);
}

function describeRbac(binary: KubectlBinary): void {
  describe(`${binary.name}: service account tokens, RBAC, auth can-i`, () => {
    let server: TestServer;
    let admin: KubectlContext;
    let bot: KubectlContext;

    before(async () => {
      server = await startTestServer({ controller: false });
      admin = server.context(binary);
      kubectlOk(await kubectl(admin, ["create", "namespace", "team"]), "create namespace");
      kubectlOk(
        await kubectl(admin, ["create", "serviceaccount", "bot", "-n", "team"]),
        "create sa",
      );
      const token = kubectlOk(
        await kubectl(admin, ["create", "token", "bot", "-n", "team", "--duration=20m"]),
        "create token",
      ).trim();
      const claims = decodeJwt(token);
      assert.equal(claims.sub, BOT);
      assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 1200);
      const file = join(server.dir, `bot-${binary.name}.kubeconfig`);
      const { up } = server;
      await writeKubeconfig(
        file,
        renderKubeconfig({ server: up.url, token, caCert: up.caCert!, name: "bot" }),
      );
      bot = server.context(binary, file);
    });
    after(async () => {
      await server?.up.close();
    });

    it("every namespace, a new one too, has the default ServiceAccount", async () => {
      const rows = tableRows(kubectlOk(await kubectl(admin, ["get", "sa", "-A"]), "get sa -A")).map(
        (r) => `${r[0]}/${r[1]}`,
      );
      for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease", "team"]) {
        assert.ok(rows.includes(`${ns}/default`), `${ns}: ${rows.join(" ")}`);
      }
    });

    it("a token's user is denied what RBAC does not allow, with upstream's message", async () => {
      const list = await kubectl(bot, ["get", "pods", "-n", "team"]);
      assert.equal(list.code, 1, list.stderr);
      assert.match(
        list.stderr,
        /Error from server \(Forbidden\): pods is forbidden: User "system:serviceaccount:team:bot" cannot list resource "pods" in API group "" in the namespace "team"/,
      );
      const can = await kubectl(bot, ["auth", "can-i", "list", "pods", "-n", "team"]);
      assert.equal(can.code, 1);
      assert.equal(can.stdout.trim(), "no");
    });

    it("whoami: the account, in its groups", async () => {
      const who = kubectlOk(await kubectl(bot, ["auth", "whoami", "-o", "json"]), "whoami");
      const info = JSON.parse(who).status.userInfo;
      assert.equal(info.username, BOT);
      assert.deepEqual(info.groups, [
        "system:serviceaccounts",
        "system:serviceaccounts:team",
        "system:authenticated",
      ]);
    });

    it("a RoleBinding of view: yes in its namespace, no elsewhere, --list shows the rules", async () => {
      kubectlOk(
        await kubectl(admin, [
          "create",
          "rolebinding",
          "bot-view",
          "-n",
          "team",
          "--clusterrole=view",
          "--serviceaccount=team:bot",
        ]),
        "create rolebinding",
      );
      const yes = await kubectl(bot, ["auth", "can-i", "list", "pods", "-n", "team"]);
      assert.deepEqual([yes.code, yes.stdout.trim()], [0, "yes"]);
      kubectlOk(await kubectl(bot, ["get", "pods", "-n", "team"]), "get pods with view");
      const scale = await kubectl(bot, [
        "auth",
        "can-i",
        "update",
        "deployments/scale",
        "-n",
        "team",
      ]);
      assert.deepEqual([scale.code, scale.stdout.trim()], [1, "no"]);
      const elsewhere = await kubectl(bot, ["get", "pods", "-n", "default"]);
      assert.equal(elsewhere.code, 1);
      assert.match(
        elsewhere.stderr,
        /cannot list resource "pods" in API group "" in the namespace "default"/,
      );
      const secrets = await kubectl(bot, ["get", "secrets", "-n", "team"]);
      assert.match(
        secrets.stderr,
        /secrets is forbidden: User "system:serviceaccount:team:bot" cannot list resource "secrets"/,
      );
      const rules = tableRows(
        kubectlOk(await kubectl(bot, ["auth", "can-i", "--list", "-n", "team"]), "can-i --list"),
      );
      assert.deepEqual(rules[0], ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]);
      const pods = rules.find((r) => r[0] === "pods");
      assert.deepEqual(pods, ["pods", "[]", "[]", "[get list watch]"]);
      assert.ok(rules.some((r) => r[0] === "horizontalpodautoscalers.autoscaling"));
      assert.ok(rules.some((r) => r.includes("[/apis/*]")));
    });

    it("granting what one does not hold is refused (privilege escalation)", async () => {
      kubectlOk(
        await kubectl(admin, [
          "create",
          "role",
          "role-writer",
          "-n",
          "team",
          "--verb=create",
          "--resource=roles.rbac.authorization.k8s.io",
        ]),
        "create role-writer",
      );
      kubectlOk(
        await kubectl(admin, [
          "create",
          "rolebinding",
          "bot-role-writer",
          "-n",
          "team",
          "--role=role-writer",
          "--serviceaccount=team:bot",
        ]),
        "bind role-writer",
      );
      const grab = await kubectl(bot, [
        "create",
        "role",
        "grab",
        "-n",
        "team",
        "--verb=get",
        "--resource=secrets",
      ]);
      assert.equal(grab.code, 1);
      assert.match(
        grab.stderr,
        /roles\.rbac\.authorization\.k8s\.io "grab" is forbidden: user "system:serviceaccount:team:bot" \(groups=\["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/,
      );
      // What view gives it, it may grant.
      kubectlOk(
        await kubectl(bot, [
          "create",
          "role",
          "reader",
          "-n",
          "team",
          "--verb=get",
          "--resource=pods",
        ]),
        "create a role within its rights",
      );
    });

    it("kubectl create token: too short a duration, or no such account, is refused", async () => {
      const short = await kubectl(admin, ["create", "token", "bot", "-n", "team", "--duration=1m"]);
      assert.equal(short.code, 1);
      assert.match(
        short.stderr,
        /TokenRequest\.authentication\.k8s\.io "" is invalid: spec\.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
      );
      const missing = await kubectl(admin, ["create", "token", "ghost", "-n", "team"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /serviceaccounts "ghost" not found/);
      const self = await kubectl(bot, ["create", "token", "bot", "-n", "team"]);
      assert.equal(self.code, 1);
      assert.match(
        self.stderr,
        /serviceaccounts "bot" is forbidden: User "system:serviceaccount:team:bot" cannot create resource "serviceaccounts\/token" in API group "" in the namespace "team"/,
      );
    });

    it("kubectl --as/--as-group/--as-uid: the request runs as the impersonated user", async () => {
      const who = JSON.parse(
        kubectlOk(
          await kubectl(admin, [
            "auth",
            "whoami",
            "-o",
            "json",
            "--as=jane",
            "--as-group=devs",
            "--as-group=ops",
            "--as-uid=42",
          ]),
          "whoami --as",
        ),
      ).status.userInfo;
      assert.deepEqual(who, {
        username: "jane",
        uid: "42",
        groups: ["devs", "ops", "system:authenticated"],
      });
      const jane = await kubectl(admin, ["get", "pods", "-n", "team", "--as=jane"]);
      assert.equal(jane.code, 1);
      assert.match(
        jane.stderr,
        /Error from server \(Forbidden\): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team"/,
      );
      // The bot holds view in team (above): impersonated, the admin gets just that.
      const asBot = await kubectl(admin, [
        "auth",
        "can-i",
        "list",
        "pods",
        "-n",
        "team",
        `--as=${BOT}`,
      ]);
      assert.deepEqual([asBot.code, asBot.stdout.trim()], [0, "yes"]);
      kubectlOk(
        await kubectl(admin, ["get", "pods", "-n", "team", `--as=${BOT}`]),
        "get pods as bot",
      );
      const secrets = await kubectl(admin, ["get", "secrets", "-n", "team", `--as=${BOT}`]);
      assert.equal(secrets.code, 1);
      assert.match(secrets.stderr, new RegExp(`User "${BOT}" cannot list resource "secrets"`));
      // The bot may not impersonate: upstream's 403 names what it asked for.
      const refused = await kubectl(bot, ["get", "pods", "-n", "team", "--as=jane"]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(
          `Error from server \\(Forbidden\\): users "jane" is forbidden: User "${BOT}" cannot impersonate resource "users" in API group "" at the cluster scope`,
        ),
      );
    });

    it("the admin token keeps full access", async () => {
      const all = await kubectl(admin, ["auth", "can-i", "*", "*"]);
      assert.deepEqual([all.code, all.stdout.trim()], [0, "yes"]);
      kubectlOk(await kubectl(admin, ["get", "secrets", "-A"]), "admin get secrets");
    });

    it("the token stops working when its account is deleted", async () => {
      kubectlOk(await kubectl(admin, ["delete", "sa", "bot", "-n", "team"]), "delete sa");
      const after = await kubectl(bot, ["get", "pods", "-n", "team"]);
      assert.equal(after.code, 1);
      assert.match(after.stderr, /Unauthorized|provide credentials/);
    });
  });
}
