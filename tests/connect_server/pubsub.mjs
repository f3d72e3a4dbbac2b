// A Google API lookalike for grpc run's sign-in tests: Pub/Sub's
// Publisher.Publish served both ways over TLS, gRPC (Connect for Node, on
// an HTTP/2 port) and its google.api.http rule (POST
// /v1/{topic=projects/*/topics/*}:publish, on an HTTPS port, HTTP/2 or 1.1), each call
// refused unless it carries a token this server issued. Its /token endpoint
// makes the JWT-bearer grant Google's token endpoint makes, checking the
// assertion's RS256 signature against the service account's public key.
// GET /stats says what arrived: calls and messages by protocol, those
// signed in, the routing headers, the tokens issued.
// argv: descriptor set, server cert PEM, server key PEM, the account's public key PEM.
// Prints {"grpc":PORT,"https":PORT} once both listen.
import http2 from "node:http2";
import { createHash, randomBytes, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

const [descriptors, certFile, keyFile, accountKeyFile] = process.argv.slice(2);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(descriptors)));
const tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
const accountKey = readFileSync(accountKeyFile);
const tokens = new Set();
const stats = { calls: {}, signed: {}, messages: {}, routing: {}, tokens_issued: 0, assertions_refused: 0 };
const bump = (table, key, by = 1) => (table[key] = (table[key] ?? 0) + by);

// The same message IDs for the same bytes, whichever way they came.
const ids = (datas) => datas.map((data) => createHash("sha256").update(data).digest("hex").slice(0, 16));

// Counts a call; says whether its token is one this server issued.
const arrived = (protocol, headers, messages) => {
  bump(stats.calls, protocol);
  bump(stats.messages, protocol, messages);
  const routing = headers["x-goog-request-params"];
  if (routing) bump(stats.routing, `${protocol} ${routing}`);
  const bearer = (headers.authorization ?? "").replace(/^Bearer /, "");
  const signed = tokens.has(bearer);
  if (signed) bump(stats.signed, protocol);
  return signed;
};

const publisher = {
  async publish(request, context) {
    const headers = Object.fromEntries(context.requestHeader.entries());
    if (!arrived("grpc", headers, request.messages.length)) {
      throw new ConnectError("Request had invalid authentication credentials.", Code.Unauthenticated);
    }
    return { messageIds: ids(request.messages.map((m) => m.data)) };
  },
};
const grpc = connectNodeAdapter({
  grpc: true, connect: false, grpcWeb: false,
  routes: (router) => router.service(registry.getService("google.pubsub.v1.Publisher"), publisher),
});

// The JWT-bearer grant: a token for an assertion the account's key signed.
const grant = (form) => {
  const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
  const signed = signature && verify("RSA-SHA256", Buffer.from(`${header}.${claims}`), accountKey,
    Buffer.from(signature, "base64url"));
  if (!signed) {
    stats.assertions_refused += 1;
    return [400, { error: "invalid_grant", error_description: "Invalid JWT Signature." }];
  }
  const token = `tok-${randomBytes(12).toString("hex")}`;
  tokens.add(token);
  stats.tokens_issued += 1;
  return [200, { access_token: token, expires_in: 3600, token_type: "Bearer" }];
};

const publish = (request, body) => {
  const json = JSON.parse(body || "{}");
  const messages = json.messages ?? [];
  if (!arrived("http", request.headers, messages.length)) {
    return [401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } }];
  }
  return [200, { messageIds: ids(messages.map((m) => Buffer.from(m.data ?? "", "base64"))) }];
};

const rest = (request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    const url = new URL(request.url, "https://localhost");
    let answer = [404, { error: { code: 404, message: `no route ${url.pathname}`, status: "NOT_FOUND" } }];
    if (request.method === "POST" && url.pathname === "/token") {
      answer = grant(new URLSearchParams(body));
    } else if (request.method === "POST" && /^\/v1\/projects\/[^/]+\/topics\/[^/:]+:publish$/.test(url.pathname)) {
      answer = publish(request, body);
    } else if (url.pathname === "/stats") {
      answer = [200, stats];
    }
    response.writeHead(answer[0], { "content-type": "application/json" });
    response.end(JSON.stringify(answer[1]));
  });
};

const grpcServer = http2.createSecureServer(tls, grpc).listen(0, "127.0.0.1");
// HTTP/2 and HTTP/1.1 by ALPN, as Google's front ends answer.
const httpsServer = http2.createSecureServer({ ...tls, allowHTTP1: true }, rest).listen(0, "127.0.0.1");
let listening = 0;
for (const server of [grpcServer, httpsServer]) {
  server.on("listening", () => {
    listening += 1;
    if (listening === 2) {
      console.log(JSON.stringify({ grpc: grpcServer.address().port, https: httpsServer.address().port }));
    }
  });
}
