"""google-cloud-storage's JSON client against the emulator in STORAGE_EMULATOR_HOST.

Uploads one object in chunked resumable mode and one in a single request, both
with crc32c, then reads both back whole (the library checking crc32c against
x-goog-hash) and a range of each (Range: bytes=A-B), and checks size and bytes.
Prints one line per check; exits non-zero on the first failure.
"""
import base64
import io
import os
import sys

import google_crc32c
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

bucket_name = sys.argv[1]
client = storage.Client(project="interop", credentials=AnonymousCredentials())
bucket = client.bucket(bucket_name)


def crc32c_b64(data: bytes) -> str:
    return base64.b64encode(google_crc32c.Checksum(data).digest()).decode()


def check(name: str, data: bytes, **upload) -> None:
    blob = bucket.blob(name, **upload)
    blob.upload_from_file(io.BytesIO(data), size=len(data), checksum="crc32c", if_generation_match=0)
    blob.reload()
    assert blob.size == len(data), (name, blob.size, len(data))
    assert blob.crc32c == crc32c_b64(data), (name, blob.crc32c)
    back = bucket.blob(name).download_as_bytes(checksum="crc32c")
    assert back == data, f"{name}: read back {len(back)} bytes that differ"
    start, end = len(data) // 3, len(data) // 3 + 65535
    ranged = bucket.blob(name).download_as_bytes(start=start, end=end)
    assert ranged == data[start : end + 1], f"{name}: the range {start}-{end} differs ({len(ranged)} bytes)"
    print(f"ok {name} {len(data)} bytes crc32c={blob.crc32c}, read back whole and bytes {start}-{end}")


data = os.urandom(3 * 1024 * 1024 + 12345)
check("interop/json-resumable.bin", data, chunk_size=1024 * 1024)
check("interop/json-single.bin", data[:100_000])
