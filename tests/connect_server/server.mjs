// Connect for Node serving demo.v1.Store from a descriptor set (argv[2]),
// with no generated code: gRPC on an h2c port, Connect's JSON protocol on
// an HTTP/1.1 port, and GET /stats on the HTTP/1.1 port (the store's keys,
// the calls each protocol answered, how many of them carried the header
// "authorization: Bearer t0ken", every "x-tag" header's value as it came,
// and the messages client and bidi streams carried), so tests read back
// what arrived. gRPC's port speaks Connect's protocol too, over HTTP/2.
// Prints {"grpc":PORT,"http":PORT} once both listen.
import http from "node:http";
import http2 from "node:http2";
import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(process.argv[2])));
const store = new Map();
const calls = {};
const authorized = {};
const tags = {};
const messages = {};
const count = (context) => {
  const protocol = context.protocolName;
  calls[protocol] = (calls[protocol] ?? 0) + 1;
  const tag = context.requestHeader.get("x-tag");
  if (tag !== null) {
    (tags[protocol] ??= []).push(tag);
  }
  if (context.requestHeader.get("authorization") === "Bearer t0ken") {
    authorized[protocol] = (authorized[protocol] ?? 0) + 1;
  }
};

const service = {
  async put(request, context) {
    count(context);
    store.set(request.key, request.value);
    return { key: request.key, size: BigInt(request.value.length) };
  },
  async get(request, context) {
    count(context);
    if (!store.has(request.key)) {
      throw new ConnectError(`no key ${request.key}`, Code.NotFound);
    }
    return { key: request.key, value: store.get(request.key) };
  },
  async *list(request, context) {
    count(context);
    for (const key of [...store.keys()].sort()) {
      if (key.startsWith(request.prefix)) {
        yield { key, value: store.get(key) };
      }
    }
  },
  async putMany(requests, context) {
    count(context);
    let [n, bytes] = [0, 0];
    for await (const request of requests) {
      messages[context.protocolName] = (messages[context.protocolName] ?? 0) + 1;
      store.set(request.key, request.value);
      n += 1;
      bytes += request.value.length;
    }
    return { count: BigInt(n), bytes: BigInt(bytes) };
  },
  async *echo(requests, context) {
    count(context);
    for await (const request of requests) {
      messages[context.protocolName] = (messages[context.protocolName] ?? 0) + 1;
      store.set(request.key, request.value);
      yield { key: request.key, size: BigInt(request.value.length) };
    }
  },
  async delete(request, context) {
    count(context);
    let deleted = 0;
    for (const key of [...store.keys()]) {
      if (key.startsWith(request.prefix)) {
        store.delete(key);
        deleted += 1;
      }
    }
    return { deleted: BigInt(deleted) };
  },
};

const routes = (router) => router.service(registry.getService("demo.v1.Store"), service);
const connect = connectNodeAdapter({ routes });
// A client stream as grpc-gateway takes it: newline-delimited JSON, a message a line.
const putManyLines = (request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    calls.gateway = (calls.gateway ?? 0) + 1;
    let [n, bytes] = [0, 0];
    for (const line of body.split("\n").filter((l) => l.trim() !== "")) {
      const message = JSON.parse(line);
      const value = Buffer.from(message.value ?? "", "base64");
      store.set(message.key, value);
      messages.gateway = (messages.gateway ?? 0) + 1;
      n += 1;
      bytes += value.length;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ count: String(n), bytes: String(bytes) }));
  });
};

const stats = (request, response) => {
  if (request.method === "POST" && request.url === "/v1/putmany") {
    putManyLines(request, response);
    return;
  }
  if (request.url === "/stats") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ keys: [...store.keys()].sort(), calls, authorized, tags, messages }));
    return;
  }
  connect(request, response);
};

const grpc = http2.createServer(connect).listen(0, "127.0.0.1");
const json = http.createServer(stats).listen(0, "127.0.0.1");
let listening = 0;
for (const server of [grpc, json]) {
  server.on("listening", () => {
    listening += 1;
    if (listening === 2) {
      console.log(JSON.stringify({ grpc: grpc.address().port, http: json.address().port }));
    }
  });
}
