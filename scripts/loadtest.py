"""Eight players upload their photos at once: latency, errors and correct answers.

    python scripts/loadtest.py [--players 8] [--rounds 3] [--reader auto|real|stub] [--json]

Starts the real server (waitress, ``python -m companion serve``) on a free
127.0.0.1 port with a temporary instance folder, sets up a table for the
players, and then, ``--rounds`` times, every player at the same moment (a
barrier) uploads a photo of their own hand to their seat's photo route and
then saves their hand (a JSON save, as the page does after a correction).
Each player is a separate browser session with its own cookie and CSRF token.

The photos are drawn hands (the synthetic card faces of ``vision.synth``,
with the true cards also written in the JPEG comment).  Readers:

- ``real``: the shipped ONNX models (``models/*.onnx``), loaded once at start.
  A correct answer is the same cards the server reads for that photo when it
  is alone (a sequential baseline first), so the figure checks the server
  under load, not the model; the model's own accuracy against the true cards
  is printed beside it.
- ``stub``: the same server with a reader that decodes the photo for real
  (``vision.photo.load_photo``) and answers the cards in its JPEG comment, so
  a correct answer is exactly the player's own cards.
- ``auto`` (default): ``real`` when the models load, else ``stub``.

Prints p50/p95 latency for uploads and saves, errors, timeouts and correct
answers; exits 1 if any request failed, timed out or answered wrongly.
Bounded: players x rounds x 2 requests, each with a timeout.
"""
from __future__ import annotations

import argparse
import io
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _harness import Browser, Server, Unreachable, free_port, new_key, percentile  # noqa: E402

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]
DECK = [r + s for s in "SCDH" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                        "J", "Q", "K")]
CARDS_EACH = 3


# --- photos ------------------------------------------------------------------------------

def make_photos(hands: list[list[str]], size: int = 1280, seed: int = 1) -> list[bytes]:
    """One JPEG per hand: the cards in a row on green felt, true cards in the comment."""
    try:
        images = _synth_images(hands, size, seed)
    except Exception:  # vision.synth missing or changed: plain drawn cards still load-test the server
        images = [_drawn_image(hand, size) for hand in hands]
    out = []
    for hand, img in zip(hands, images):
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=90, comment=("cards:" + " ".join(hand)).encode())
        out.append(buf.getvalue())
    return out


def _synth_images(hands, size, seed):
    from PIL import Image
    from vision.synth.scene import SceneGenerator, card_homography
    gen = SceneGenerator(seed=seed, imgsz=size, art_decks={}, procedural=True)
    images = []
    for k, hand in enumerate(hands):
        height = size * 0.3
        step = size / (len(hand) + 1)
        items = []
        for i, code in enumerate(hand):
            face = gen.procedural.face(k % gen.procedural.n_styles, code)
            items.append((face, card_homography(face, step * (i + 1), size / 2, height, theta=0.0)))
        bgr, _, _ = gen.compose(items, size=size)
        images.append(Image.fromarray(bgr[:, :, ::-1].copy()))
    return images


def _drawn_image(hand, size):
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (size, size), (31, 107, 69))
    d = ImageDraw.Draw(img)
    w = size // (len(hand) + 2)
    for i, code in enumerate(hand):
        x = w // 2 + i * (w + 10)
        d.rounded_rectangle((x, size // 3, x + w, size // 3 + int(w * 1.4)), 12, fill=(250, 250, 245))
        d.text((x + 10, size // 3 + 10), code, fill=(20, 20, 20), font_size=w // 4)
    return img


# --- the stub server ------------------------------------------------------------------------

class CommentReader:
    """Decodes the photo for real, then answers the cards written in its JPEG comment."""

    def read(self, data: bytes):
        from types import SimpleNamespace

        from PIL import Image
        from vision.photo import load_photo
        photo = load_photo(data)
        comment = Image.open(io.BytesIO(data)).info.get("comment", b"").decode("ascii", "replace")
        codes = comment[len("cards:"):].split() if comment.startswith("cards:") else []
        cards = [SimpleNamespace(code=c, confidence=0.99, box=(10.0 * i, 10.0, 10.0 * i + 9, 20.0))
                 for i, c in enumerate(codes)]
        return SimpleNamespace(cards=cards, warnings=[], width=photo.width, height=photo.height)


def serve_stub(port: int, instance: str) -> int:
    """The production server set-up (waitress, same threads and limits) with CommentReader."""
    import waitress

    from companion.web import create_app
    from companion.web.server import DEFAULT_THREADS
    app = create_app({}, reader=CommentReader(), instance_path=instance)
    waitress.serve(app, host="127.0.0.1", port=port, threads=DEFAULT_THREADS,
                   max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024,
                   ident="companion")
    return 0


class StubServer(Server):
    def cmd(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "--serve-stub", str(self.port),
                str(self.instance)]


def models_load() -> bool:
    try:
        from vision.reader import get_reader
        get_reader()
        return True
    except Exception:
        return False


# --- the run -----------------------------------------------------------------------------

def run(players: int = 8, rounds: int = 3, reader: str = "auto", timeout: float = 60.0,
        seed: int = 1) -> dict:
    if reader == "auto":
        reader = "real" if models_load() else "stub"
    rng = random.Random(seed)
    deck = rng.sample(DECK, players * CARDS_EACH)
    hands = [deck[i * CARDS_EACH:(i + 1) * CARDS_EACH] for i in range(players)]
    photos = make_photos(hands, seed=seed)
    tmp = tempfile.TemporaryDirectory(prefix="loadtest-")
    instance = Path(tmp.name) / "instance"
    log = Path(tmp.name) / "server.log"
    server = (Server(instance, free_port(), preload=True, log=log) if reader == "real"
              else StubServer(instance, free_port(), log=log))
    startup = server.start(timeout=180)
    try:
        host = Browser(server.port, timeout=timeout)
        host.open()
        table = host.create_table(NAMES[:players], cards_dealt=2)
        status, headers, _ = host.post_form(f"/tables/{table}/games", {"idempotency_key": new_key()})
        game = int(headers["Location"].rstrip("/").rsplit("/", 1)[-1])
        # what each photo reads as when it is the only request (the reference for "correct")
        expected = []
        for i, photo in enumerate(photos):
            if reader == "stub":
                expected.append(sorted(hands[i]))
                continue
            st, _, body = host.post_file("/api/detect", "photo", f"p{i}.jpg", photo)
            if st != 200:
                raise RuntimeError(f"baseline read answered {st}: {body[:300]!r}")
            expected.append(sorted(c["card"] for c in json.loads(body)["cards"]))
        results: list[dict] = []
        lock = threading.Lock()
        barrier = threading.Barrier(players)

        def player(seat: int):
            b = Browser(server.port, timeout=timeout)
            b.open()
            for r in range(rounds):
                barrier.wait()
                for kind in ("upload", "save"):
                    t0 = time.monotonic()
                    rec = {"seat": seat, "round": r, "kind": kind, "ok": False, "correct": None}
                    try:
                        if kind == "upload":
                            st, _, body = b.post_file(
                                f"/tables/{table}/games/{game}/hands/{seat}/photo", "photo",
                                f"seat{seat}.jpg", photos[seat], key=new_key())
                        else:
                            st, _, body = b.post_json(f"/tables/{table}/games/{game}/hands/{seat}",
                                                      {"cards": hands[seat]}, key=new_key())
                        rec["status"] = st
                        rec["ok"] = st == 200
                        if rec["ok"]:
                            data = json.loads(body)
                            mine = next(h for h in data["hands"] if h["seat"] == seat)
                            if kind == "upload":
                                got = sorted(c["code"] for c in (data.get("reading") or {}).get("cards", []))
                                rec["correct"] = got == expected[seat]
                                rec["accurate"] = got == sorted(hands[seat])
                            else:
                                rec["correct"] = mine["cards"] == hands[seat]
                    except Unreachable as exc:
                        rec["status"] = "timeout" if "timed out" in str(exc) else "unreachable"
                    rec["s"] = time.monotonic() - t0
                    with lock:
                        results.append(rec)

        threads = [threading.Thread(target=player, args=(s,), daemon=True) for s in range(players)]
        t_run = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout * rounds * 2 + 60)
        wall = time.monotonic() - t_run
        # the final state: every seat holds its own hand
        st, _, body = host.request("GET", f"/tables/{table}/games/{game}/state")
        final = json.loads(body) if st == 200 else {"hands": []}
        final_ok = all(h["cards"] == hands[h["seat"]] for h in final["hands"]) and \
            len(final["hands"]) == players
    finally:
        server.stop()
        tmp.cleanup()
    lat = {k: [x["s"] for x in results if x["kind"] == k and x["ok"]] for k in ("upload", "save")}
    every = lat["upload"] + lat["save"]
    expected_requests = players * rounds * 2
    figures = {
        "reader": reader,
        "players": players,
        "rounds": rounds,
        "requests": len(results),
        "requests_expected": expected_requests,
        "errors": sum(1 for x in results if not x["ok"]),
        "timeouts": sum(1 for x in results if x.get("status") == "timeout"),
        "correct": sum(1 for x in results if x["correct"]),
        "final_state_ok": final_ok,
        "p50_s": round(percentile(every, 0.5), 3),
        "p95_s": round(percentile(every, 0.95), 3),
        "upload_p50_s": round(percentile(lat["upload"], 0.5), 3),
        "upload_p95_s": round(percentile(lat["upload"], 0.95), 3),
        "save_p50_s": round(percentile(lat["save"], 0.5), 3),
        "save_p95_s": round(percentile(lat["save"], 0.95), 3),
        "max_s": round(max(every), 3) if every else None,
        "wall_s": round(wall, 2),
        "server_start_s": round(startup, 2),
        "model_accuracy": (round(sum(1 for x in results if x.get("accurate")) / max(1, len(lat["upload"])), 3)
                           if reader == "real" else None),
    }
    return figures


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve-stub"]:
        return serve_stub(int(argv[1]), argv[2])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reader", choices=("auto", "real", "stub"), default="auto")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not 1 <= args.players <= 10 or not 1 <= args.rounds <= 20:
        ap.error("keep it bounded: 1-10 players, 1-20 rounds")
    f = run(args.players, args.rounds, args.reader, args.timeout, args.seed)
    if args.json:
        print(json.dumps(f, indent=2))
    else:
        print(f"reader: {f['reader']}; {f['players']} players x {f['rounds']} rounds "
              f"(upload + save each)")
        print(f"requests: {f['requests']}/{f['requests_expected']}; errors: {f['errors']}; "
              f"timeouts: {f['timeouts']}; correct answers: {f['correct']}/{f['requests_expected']}; "
              f"final state ok: {f['final_state_ok']}")
        print(f"latency p50 {f['p50_s']} s, p95 {f['p95_s']} s (max {f['max_s']} s); "
              f"uploads p50 {f['upload_p50_s']} / p95 {f['upload_p95_s']} s; "
              f"saves p50 {f['save_p50_s']} / p95 {f['save_p95_s']} s")
        print(f"wall {f['wall_s']} s; server start {f['server_start_s']} s"
              + (f"; model reads the true cards in {f['model_accuracy']:.0%} of uploads"
                 if f["model_accuracy"] is not None else ""))
    bad = (f["errors"] or f["timeouts"] or f["requests"] != f["requests_expected"]
           or f["correct"] != f["requests_expected"] or not f["final_state_ok"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
