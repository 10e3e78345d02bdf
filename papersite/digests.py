"""Content digests: of bytes, of texts and of plain values (fingerprints), one hash for every key and check."""

from __future__ import annotations

import hashlib
import io
import pickle
import threading
from dataclasses import fields, is_dataclass
from functools import lru_cache

DIGEST_SIZE = 16


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


def text_digest(*parts: str) -> bytes:
    """One digest of several texts; each is length-prefixed, so no two lists of texts give the same bytes."""
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.digest()


class Unfingerprintable(TypeError):
    """A value whose content cannot be captured (a lambda, an open file): never reused."""


class Fingerprints:
    """Digests of plain values (dataclasses, tuples, dicts, strings, numbers, numpy arrays): equal
    values, equal digests, whatever objects they share.

    A value is pickled without the pickle memo, so its bytes depend on what it contains, never on
    which objects happen to be shared. Dicts, long tuples and lists, and dataclasses with a dict
    field are walked instead, and each dataclass and walked tuple is digested once per instance of
    this class (one build): a listing's papers are digested once, however many pages show them.
    """

    def __init__(self) -> None:
        self.memo: dict[int, tuple[object, bytes]] = {}

    def __call__(self, value: object) -> bytes:
        kind = type(value)
        if kind is str:
            return digest(b"s" + value.encode("utf-8", "surrogatepass"))
        if kind is int or value is None:   # "i"/"n" never start a pickle (b"\x80"): no clash with leaf()
            return digest(b"n" if value is None else b"i%d" % value)
        if kind is dict:
            return self.mapping(value)
        walked = kind in (tuple, list) and len(value) > WALK_LENGTH
        names = dataclass_fields(kind)
        if not walked and names is None:
            return leaf(value)
        if names is not None and "version" in names and value.version:
            # The digest of the value's content (or of exactly what it was made from), taken by the
            # stage that made it: no need to walk it again.
            return digest(b"V" + class_name(kind) + b"\0" + value.version)
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if walked:
            result = self.walked(value, b"t" if kind is tuple else b"l")
        elif any(type(getattr(value, name)) is dict for name in names):
            h = hashlib.blake2b(b"d" + class_name(kind), digest_size=DIGEST_SIZE)
            for name in names:
                h.update(name.encode() + b"=" + self(getattr(value, name)))
            result = h.digest()
        else:
            result = leaf(value)
        self.memo[id(value)] = (value, result)
        return result


    def walked(self, values, tag: bytes = b"t") -> bytes:
        """The digest of a sequence item by item, however short: a dataclass in it is digested by
        its version, never pickled whole."""
        h = hashlib.blake2b(tag, digest_size=DIGEST_SIZE)
        for item in values:
            h.update(self(item))
        return h.digest()

    def mapping(self, value: dict) -> bytes:
        h = hashlib.blake2b(b"m", digest_size=DIGEST_SIZE)
        if all(type(key) is str for key in value):   # names: spelt out, no digest of their own
            for key in sorted(value):
                h.update(key.encode("utf-8", "surrogatepass") + b"\0" + self(value[key]))
        else:
            for pair in sorted(self(key) + self(item) for key, item in value.items()):
                h.update(pair)
        return h.digest()


# Tuples and lists longer than this are walked item by item (listings share their items).
WALK_LENGTH = 8


def fingerprint(value: object) -> bytes:
    """The digest of one value (with no memo shared with other calls)."""
    return Fingerprints()(value)


def fast_pickler(buffer: io.BytesIO) -> pickle.Pickler:
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.fast = True  # no memo: equal values give equal bytes, however they share objects
    return pickler


class Pickling(threading.local):
    """A pickler and its buffer, made once per thread: making them costs more than pickling a
    page's small values, and a build digests hundreds of thousands of them."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()
        self.pickler = fast_pickler(self.buffer)


PICKLING = Pickling()


def leaf(value: object) -> bytes:
    pickling = PICKLING
    buffer = pickling.buffer
    buffer.seek(0)
    buffer.truncate()
    try:
        pickling.pickler.dump(value)
    except Exception as exc:  # lambdas, modules, open files, cycles
        pickling.pickler = fast_pickler(buffer)   # not one a failed dump may have left half way
        raise Unfingerprintable(f"cannot fingerprint a {type(value).__name__}: {exc}") from None
    return digest(buffer.getvalue())


@lru_cache(maxsize=None)
def dataclass_fields(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type (None for other types), looked up once per type."""
    return tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None


@lru_cache(maxsize=None)
def class_name(kind: type) -> bytes:
    return f"{kind.__module__}.{kind.__qualname__}".encode()
