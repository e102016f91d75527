"""The command line: a stable contract that scripts rely on.

    python -m companion score [--json] CARD...     one hand
    python -m companion score --batch              one hand per stdin line
    python -m companion round [--json] FILE|-      one round (JSON file, - = stdin)
    python -m companion round --batch              one JSON round per stdin line
    python -m companion bench [-n N]               solver timings

Exit status: 0 when the answer was printed; 2 for a usage error or bad input
(the message goes to stderr).  In batch mode a bad line prints
``{"error": "..."}`` on its own output line and the batch goes on (exit 0),
so output line i always answers input line i.
"""

from __future__ import annotations

import argparse
import json
import sys

from .cards import parse_cards
from .contract import round_payload, score_payload
from .errors import RummyError

#: Longest input line (or round file) read, in characters.
MAX_LINE = 1 << 20


class _Parser(argparse.ArgumentParser):
    def error(self, message):           # exit 2 with the message, like argparse
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _score_line(line: str) -> dict:
    if len(line) > MAX_LINE:
        raise RummyError(f"line longer than {MAX_LINE} characters")
    return score_payload([str(c) for c in parse_cards(line)])


def _round_text(text: str) -> dict:
    if len(text) > MAX_LINE:
        raise RummyError(f"round longer than {MAX_LINE} characters")
    if not text.strip():
        raise RummyError("empty input: expected a JSON round")
    try:
        obj = json.loads(text)
    except RecursionError:
        raise RummyError("the JSON is nested too deeply") from None
    except ValueError as e:
        raise RummyError(f"not valid JSON: {e}") from None
    return round_payload(obj)


def _batch(fn, stdin, stdout) -> int:
    for raw in stdin:
        line = raw.rstrip("\r\n")
        try:
            out = fn(line)
        except (RummyError, RecursionError) as e:
            out = {"error": str(e) if isinstance(e, RummyError) else "input nested too deeply"}
        stdout.write(_dump(out) + "\n")
        stdout.flush()
    return 0


def format_score(result: dict) -> str:
    lines = [f"Hand: {' '.join(result['hand']) or '(no cards)'}"]
    if result["melds"]:
        lines.append("Melds:")
        lines += [f"  {m['kind']:<8} {' '.join(m['cards'])}" for m in result["melds"]]
    else:
        lines.append("Melds: none")
    lines.append(f"Unmelded: {' '.join(result['unmelded']) or 'none'}")
    lines.append(f"Count: {result['count']}")
    lines.append(f"Can go out: {'yes' if result['can_go_out'] else 'no'}")
    return "\n".join(lines)


def format_round(result: dict) -> str:
    head = f"Winner: {result['winner']}" if result["winner"] else "Winner: none"
    lines = [head, f"Legal: {'yes' if result['legal'] else 'no'}", result["reason"], ""]
    for s in result["standings"]:
        if s["dropped"]:
            lines.append(f"  {s['name']}: dropped out")
            continue
        compared = "" if s["comparison"] == s["count"] else f" (compared as {s['comparison']})"
        melds = "; ".join(" ".join(m["cards"]) for m in s["melds"]) or "no melds"
        left = " ".join(s["unmelded"]) or "nothing"
        lines.append(f"  {s['name']}: count {s['count']}{compared} - {melds}; unmelded {left}")
    return "\n".join(lines)


def main(argv=None, stdin=None, stdout=None, stderr=None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _Parser(prog="python -m companion",
                     description="Declaration Rummy companion: score hands and judge rounds.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p_score = sub.add_parser("score", help="best arrangement and count of one hand")
    p_score.add_argument("--json", action="store_true", help="print the score JSON")
    p_score.add_argument("--batch", action="store_true",
                         help="read one hand per stdin line, print one JSON object per line")
    p_score.add_argument("cards", nargs="*", metavar="CARD")
    p_round = sub.add_parser("round", help="judge the end of a game")
    p_round.add_argument("--json", action="store_true", help="print the result JSON")
    p_round.add_argument("--batch", action="store_true",
                         help="read one JSON round per stdin line, print one result per line")
    p_round.add_argument("file", nargs="?", metavar="FILE", help="round JSON file, or - for stdin")
    p_bench = sub.add_parser("bench", help="time the solver")
    p_bench.add_argument("-n", type=int, default=2000)
    p_bench.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    if args.command == "bench":
        from .bench import run
        if args.n < 1:
            parser.error("-n must be at least 1")
        run(args.n, args.seed, out=stdout)
        return 0
    if args.command == "score":
        if args.batch:
            if args.cards or args.json:
                parser.error("score --batch reads stdin: give no cards and no --json")
            return _batch(_score_line, stdin, stdout)
        try:
            result = _score_line(" ".join(args.cards))
        except RummyError as e:
            print(f"error: {e}", file=stderr)
            return 2
        stdout.write((_dump(result) if args.json else format_score(result)) + "\n")
        return 0
    # round
    if args.batch:
        if args.file or args.json:
            parser.error("round --batch reads stdin: give no FILE and no --json")
        return _batch(_round_text, stdin, stdout)
    if not args.file:
        parser.error("round needs a FILE (or - for stdin), or --batch")
    try:
        if args.file == "-":
            text = stdin.read(MAX_LINE + 1)
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read(MAX_LINE + 1)
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {args.file}: {e}", file=stderr)
        return 2
    try:
        result = _round_text(text)
    except RummyError as e:
        print(f"error: {e}", file=stderr)
        return 2
    stdout.write((_dump(result) if args.json else format_round(result)) + "\n")
    return 0
