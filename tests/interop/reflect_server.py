"""grpcio (Google's Python gRPC) serving demo.v1.Store from a descriptor set
(argv[1]) with no generated code, and gRPC server reflection
(grpcio-reflection, grpc.reflection.v1alpha) describing it: for `grpc run
--reflect`. Prints {"grpc": PORT} once it listens; a line "stats" on stdin
prints the store's keys and the calls it answered, so tests read back what
arrived."""

import json
import sys
from concurrent import futures

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection

pool = descriptor_pool.DescriptorPool()
for file in descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[1], "rb").read()).file:
    pool.Add(file)


def message(name):
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


PutRequest, PutResponse = message("demo.v1.PutRequest"), message("demo.v1.PutResponse")
store, calls = {}, {"count": 0}


def put(request, context):
    calls["count"] += 1
    store[request.key] = request.value
    return PutResponse(key=request.key, size=len(request.value))


handler = grpc.unary_unary_rpc_method_handler(
    put, request_deserializer=PutRequest.FromString, response_serializer=PutResponse.SerializeToString
)
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("demo.v1.Store", {"Put": handler})])
reflection.enable_server_reflection(["demo.v1.Store", reflection.SERVICE_NAME], server, pool=pool)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(json.dumps({"grpc": port}), flush=True)
for line in sys.stdin:
    if line.strip() == "stats":
        print(json.dumps({"keys": sorted(store), "calls": calls["count"]}), flush=True)
server.stop(0)
