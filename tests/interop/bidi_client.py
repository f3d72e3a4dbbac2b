"""Google's async gRPC clients for what only the v2 API has, against the
emulator's gRPC address, plaintext and anonymous:

  ranges ADDRESS BUCKET OBJECT RANGES_JSON
      AsyncMultiRangeDownloader reads every [offset, length] of RANGES_JSON
      over one BidiReadObject stream (the client checks each message's
      crc32c itself); prints "range I LENGTH CRC32C" for each.

  append ADDRESS BUCKET OBJECT FIRST_FILE SECOND_FILE
      AsyncAppendableObjectWriter creates an appendable object, appends the
      first file's bytes and flushes (prints "flushed N"); a
      AsyncMultiRangeDownloader reads the unfinalized object (prints
      "unfinalized LENGTH CRC32C"); a second writer takes the object over by
      its generation (prints "takeover N" with the size it found), appends
      the second file's bytes and finalizes (prints "final SIZE CRC32C").
"""
import asyncio
import json
import sys
from io import BytesIO

import google_crc32c
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud.storage.asyncio.async_appendable_object_writer import AsyncAppendableObjectWriter
from google.cloud.storage.asyncio.async_grpc_client import AsyncGrpcClient
from google.cloud.storage.asyncio.async_multi_range_downloader import AsyncMultiRangeDownloader


def crc(data: bytes) -> int:
    return int.from_bytes(google_crc32c.Checksum(data).digest(), "big")


def client(address: str) -> AsyncGrpcClient:
    return AsyncGrpcClient(
        credentials=AnonymousCredentials(),
        client_options=ClientOptions(api_endpoint=address),
        attempt_direct_path=False,
    )


async def read_ranges(storage, bucket, name, ranges, generation=None):
    downloader = await AsyncMultiRangeDownloader.create_mrd(storage, bucket, name, generation)
    buffers = [BytesIO() for _ in ranges]
    await downloader.download_ranges([(offset, length, buf) for (offset, length), buf in zip(ranges, buffers)])
    await downloader.close()
    return [buf.getvalue() for buf in buffers]


async def ranges(address, bucket, name, ranges_json):
    wanted = json.loads(ranges_json)
    for i, data in enumerate(await read_ranges(client(address), bucket, name, wanted)):
        print(f"range {i} {len(data)} {crc(data)}")


async def append(address, bucket, name, first_file, second_file):
    first, second = open(first_file, "rb").read(), open(second_file, "rb").read()
    storage = client(address)
    writer = AsyncAppendableObjectWriter(storage, bucket, name)
    await writer.open()
    await writer.append(first)
    print(f"flushed {await writer.flush()}", flush=True)
    generation = writer.generation
    [seen] = await read_ranges(storage, bucket, name, [(0, len(first))], generation)
    print(f"unfinalized {len(seen)} {crc(seen)}", flush=True)
    # The first writer is left open: the second takes the object over.
    taker = AsyncAppendableObjectWriter(storage, bucket, name, generation=generation)
    await taker.open()
    print(f"takeover {taker.persisted_size}", flush=True)
    await taker.append(second)
    final = await taker.close(finalize_on_close=True, full_object_checksum=crc(first + second))
    print(f"final {final.size} {final.checksums.crc32c}", flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    asyncio.run({"ranges": ranges, "append": append}[command](*args))
