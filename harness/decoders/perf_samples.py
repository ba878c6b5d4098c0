# SPDX-License-Identifier: GPL-2.0
"""Where each sample record of a perf.data file lies, with its time and raw bytes: what
the decoder comparison (harness/decoders/run_decoders.py) needs to show an event's bytes and to
tell which events lie before a damaged offset. Not a decoder: it reads the record frame
only (Documentation/user-events-abi.md §7, perf's file and pipe layouts), never a
tracepoint's fields. Standard library only.

File mode: the header (magic "PERFILE2", then the attrs and data sections), the attrs'
sample_type, records in the data section. Pipe mode (header size 16): records from byte
16 to the end, attrs as PERF_RECORD_HEADER_ATTR records. Either byte order (the magic
says which)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import List, Optional

MAGIC = b"PERFILE2"
RECORD_SAMPLE = 9
RECORD_HEADER_ATTR = 64
# Pipe mode: the tracing data follows this record's 16 bytes, its size in the record (u32 at
# byte 8), padded to 8 bytes.
RECORD_HEADER_TRACING_DATA = 66
# Pipe mode: a feature section as a record (u64 feature bit, then the section's bytes).
RECORD_HEADER_FEATURE = 80
# The CLOCK_DATA feature (perf record -k/--clockid): u32 version, u32 clockid, u64 wall-clock
# ns, u64 ns of that clock at the same instant; sample times are in that clock.
FEAT_CLOCK_DATA = 29

# perf_event_attr.sample_type bits, in the order their values follow one another in a
# sample record (include/uapi/linux/perf_event.h: "struct { ... } && PERF_SAMPLE_*").
IDENTIFIER, IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = (
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8,
    1 << 9, 1 << 10)
FIXED_U64 = (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD)


@dataclass
class Sample:
    offset: int  # of the record header in the file
    end: int  # the offset just past the record
    time: Optional[int]  # ns, when the sample carries it
    raw: bytes  # PERF_SAMPLE_RAW: the tracepoint's data, common fields first


@dataclass
class Layout:
    pipe: bool
    data_start: int  # where records start (file mode: the data section)
    data_end: int
    samples: List[Sample]
    problem: str = ""  # why reading stopped early ("" when it reached the end)
    clock_offset: Optional[int] = None  # wall-clock ns minus perf clock ns (CLOCK_DATA)

    def wall(self, time: Optional[int]) -> Optional[int]:
        """A sample time as the wall-clock ns a decoder prints from the clock data."""
        if time is None or self.clock_offset is None:
            return time
        return time + self.clock_offset


def _clock(data: bytes, at: int, size: int, e: str) -> Optional[int]:
    if size < 24 or at + 24 > len(data):
        return None
    _version, _clockid, wall, clk = struct.unpack_from(e + "IIQQ", data, at)
    return wall - clk


def _file_clock(data: bytes, e: str, data_off: int, data_size: int) -> Optional[int]:
    """The CLOCK_DATA feature of a file-mode header: the feature bits at byte 72, one
    (offset, size) section per set bit, in bit order, after the data section."""
    if len(data) < 104:
        return None
    bits = struct.unpack_from(e + "4Q", data, 72)
    if not bits[0] >> FEAT_CLOCK_DATA & 1:
        return None
    index = bin(bits[0] & ((1 << FEAT_CLOCK_DATA) - 1)).count("1")
    at = data_off + data_size + 16 * index
    if at + 16 > len(data):
        return None
    off, size = struct.unpack_from(e + "2Q", data, at)
    return _clock(data, off, size, e)


def _sample(buf: bytes, at: int, end: int, sample_type: int, e: str) -> Sample:
    pos = at + 8
    time = None
    raw = b""
    for bit in (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD):
        if sample_type & bit:
            if bit == TIME:
                time = struct.unpack_from(e + "Q", buf, pos)[0]
            pos += 8
    if sample_type & READ:
        raise ValueError("PERF_SAMPLE_READ is not read here")
    if sample_type & CALLCHAIN:
        nr = struct.unpack_from(e + "Q", buf, pos)[0]
        pos += 8 + 8 * nr
    if sample_type & RAW and pos + 4 <= end:
        size = struct.unpack_from(e + "I", buf, pos)[0]
        raw = bytes(buf[pos + 4:min(pos + 4 + size, end)])
    return Sample(at, end, time, raw)


def read_layout(data: bytes) -> Layout:
    """The sample records of a perf.data file (file or pipe mode); raises ValueError when
    the bytes are not perf.data at all."""
    if len(data) < 16 or data[:8] not in (MAGIC, MAGIC[::-1]):
        raise ValueError("not a perf.data file (no PERFILE2 magic)")
    e = "<" if data[:8] == MAGIC else ">"
    header_size = struct.unpack_from(e + "Q", data, 8)[0]
    pipe = header_size == 16
    sample_type = 0
    clock = None
    if pipe:
        start, stop = 16, len(data)
    else:
        attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from(
            e + "5Q", data, 16)
        start, stop = data_off, min(len(data), data_off + data_size)
        clock = _file_clock(data, e, data_off, data_size)
        if attrs_size >= attr_size > 32:
            sample_type = struct.unpack_from(e + "Q", data, attrs_off + 24)[0]
    samples: List[Sample] = []
    at = start
    problem = ""
    while at + 8 <= stop:
        rtype, _misc, size = struct.unpack_from(e + "IHH", data, at)
        if size < 8 or at + size > stop:
            problem = f"offset {at}: record size {size} does not fit"
            break
        try:
            if rtype == RECORD_HEADER_ATTR and not sample_type and size >= 8 + 32:
                sample_type = struct.unpack_from(e + "Q", data, at + 8 + 24)[0]
            elif rtype == RECORD_SAMPLE:
                samples.append(_sample(data, at, at + size, sample_type, e))
            elif rtype == RECORD_HEADER_FEATURE and size >= 16 and \
                    struct.unpack_from(e + "Q", data, at + 8)[0] == FEAT_CLOCK_DATA:
                clock = _clock(data, at + 16, size - 16, e)
        except (ValueError, struct.error) as err:
            problem = f"offset {at}: {err}"
            break
        if rtype == RECORD_HEADER_TRACING_DATA and size >= 12:
            at += (struct.unpack_from(e + "I", data, at + 8)[0] + 7) & ~7
        at += size
    return Layout(pipe, start, stop, samples, problem, clock)
