"""The gRPC v2 client bundled with google-cloud-storage (google.cloud._storage_v2)
over an insecure channel to the emulator's gRPC address.

Writes one object with BidiWriteObject in 2 MiB messages, each with its crc32c
and the whole object's crc32c on the finishing message; then a resumable write
(StartResumableWrite + upload_id stream with flush/state_lookup); checks both
with GetObject; then reads each back with ReadObject, whole and at a
read_offset/read_limit, checking every message's crc32c and the object's.
"""
import os
import sys

import google_crc32c
import grpc
from google.cloud import _storage_v2 as v2
from google.cloud._storage_v2.services.storage.transports.grpc import StorageGrpcTransport

address, bucket_name = sys.argv[1], sys.argv[2]
bucket = f"projects/_/buckets/{bucket_name}"
channel = grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 64 << 20)])
client = v2.StorageClient(transport=StorageGrpcTransport(channel=channel))
MESSAGE = 2 * 1024 * 1024


def crc(data: bytes) -> int:
    return int.from_bytes(google_crc32c.Checksum(data).digest(), "big")


def requests(data: bytes, first: dict, start: int = 0, flush_at=()):
    offset = start
    while offset < len(data):
        end = min(offset + MESSAGE, len(data))
        message = dict(first) if offset == start else {}
        message["write_offset"] = offset
        message["checksummed_data"] = v2.ChecksummedData(content=data[offset:end], crc32c=crc(data[offset:end]))
        if end in flush_at:
            message["flush"] = True
            message["state_lookup"] = True
        if end == len(data):
            message["finish_write"] = True
            message["object_checksums"] = v2.ObjectChecksums(crc32c=crc(data))
        yield v2.BidiWriteObjectRequest(**message)
        offset = end


def finished(responses) -> v2.Object:
    resource = None
    for response in responses:
        if "resource" in response:
            resource = response.resource
    assert resource is not None, "no finished object in the responses"
    return resource


def verify(name: str, data: bytes, resource: v2.Object) -> None:
    assert resource.size == len(data), (resource.size, len(data))
    got = client.get_object(v2.GetObjectRequest(bucket=bucket, object_=name))
    assert got.checksums.crc32c == crc(data), (got.checksums.crc32c, crc(data))
    print(f"ok {name} {len(data)} bytes crc32c={got.checksums.crc32c}")


data = os.urandom(5 * 1024 * 1024 + 777)
spec = v2.WriteObjectSpec(resource=v2.Object(bucket=bucket, name="interop/grpc-oneshot.bin"), if_generation_match=0)
verify("interop/grpc-oneshot.bin", data, finished(client.bidi_write_object(requests(data, {"write_object_spec": spec}))))

spec = v2.WriteObjectSpec(resource=v2.Object(bucket=bucket, name="interop/grpc-resumable.bin"), if_generation_match=0)
upload_id = client.start_resumable_write(v2.StartResumableWriteRequest(write_object_spec=spec)).upload_id
responses = client.bidi_write_object(requests(data, {"upload_id": upload_id}, flush_at={2 * MESSAGE}))
verify("interop/grpc-resumable.bin", data, finished(responses))


def read(name: str, offset: int = 0, limit: int = 0) -> bytes:
    request = v2.ReadObjectRequest(bucket=bucket, object_=name, read_offset=offset, read_limit=limit)
    content, object_crc = b"", None
    for response in client.read_object(request):
        piece = response.checksummed_data
        assert piece.crc32c == crc(piece.content), f"{name}: a message's crc32c does not match its content"
        if "object_checksums" in response:
            object_crc = response.object_checksums.crc32c
        content += piece.content
    assert object_crc is not None, f"{name}: no object_checksums in the first message"
    return content, object_crc


for name in ["interop/grpc-oneshot.bin", "interop/grpc-resumable.bin"]:
    whole, object_crc = read(name)
    assert whole == data and object_crc == crc(data), f"{name}: read back {len(whole)} bytes that differ"
    part, _ = read(name, offset=MESSAGE + 5, limit=MESSAGE + 100)
    assert part == data[MESSAGE + 5 : 2 * MESSAGE + 105], f"{name}: the ranged read differs ({len(part)} bytes)"
    print(f"ok read {name}: whole ({len(whole)} bytes) and {len(part)} bytes at offset {MESSAGE + 5}")
