"""Build the Teams app package (manifest.json + icons in a zip) to upload in Teams or the admin center.

    python deploy/teams/make_package.py --app-id <MICROSOFT_APP_ID> --domain benefitsbot.example.com

Icons are generated (a plain badge) so the package builds without design assets; replace
color.png (192x192) and outline.png (32x32, white on transparent) in the zip if you have real ones.
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import uuid
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _png(size: int, pixel: Callable[[int, int, int], tuple[int, int, int, int]]) -> bytes:
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y, size)) for x in range(size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def _badge(x: int, y: int, size: int, *, outline: bool) -> tuple[int, int, int, int]:
    c = (size - 1) / 2
    inside = (x - c) ** 2 + (y - c) ** 2 <= (size * 0.42) ** 2
    if outline:
        return (255, 255, 255, 255) if inside else (0, 0, 0, 0)
    return (255, 255, 255, 255) if inside else (29, 78, 216, 255)


def build(app_id: str, domain: str, out: Path) -> Path:
    uuid.UUID(app_id)  # the Teams app id and bot id must be the Azure app registration's GUID
    if not re.fullmatch(r"[A-Za-z0-9.-]+", domain):
        raise SystemExit(f"not a host name: {domain!r}")
    text = (HERE / "manifest.json").read_text(encoding="utf-8")
    text = text.replace("${MICROSOFT_APP_ID}", app_id).replace("${BOT_DOMAIN}", domain)
    json.loads(text)  # still valid JSON
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", text)
        zf.writestr("color.png", _png(192, lambda x, y, s: _badge(x, y, s, outline=False)))
        zf.writestr("outline.png", _png(32, lambda x, y, s: _badge(x, y, s, outline=True)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app-id", required=True, help="MICROSOFT_APP_ID (the Azure Bot's app registration)")
    parser.add_argument("--domain", required=True, help="public host of the bot, e.g. benefitsbot.example.com")
    parser.add_argument("--out", type=Path, default=Path("benefitsbot-teams.zip"))
    args = parser.parse_args()
    print(build(args.app_id, args.domain, args.out))


if __name__ == "__main__":
    main()
