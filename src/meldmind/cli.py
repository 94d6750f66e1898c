"""The ``meldmind`` command line.

    meldmind analyze gin "AS 2S 3S 7C 7D 7H KD 9C 4H 5H"
    meldmind analyze rami 5H 6H JK1 QS KS AS 2C --json
    meldmind analyze --samples          # a few sample hands of every variant (or: gin --samples)
    meldmind arena gin expert normal --deals 200 --seed 1 [--json]
    meldmind arena cardverse expert normal --deals 20 --options '{"target_score": 50}'
    meldmind hint --level master < observation.json
    meldmind hint --lines               # one observation per input line, one answer per line
    meldmind demo                       # short arenas on both games, then one hint
"""
from __future__ import annotations

# Exit statuses besides 0. A crash (a meldmind bug, with a traceback) is Python's 1.
EXIT_FAILED = 1         # could not finish: an arena lost a worker, stdout its reader or its disk
EXIT_USAGE = 2          # bad arguments or flags, as argparse's own
EXIT_REFUSED = 3        # hint: the observation was refused
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report it

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Holds a Ctrl-C until the block ends, then exits 130 as ``main`` would. The modules load
    (numpy and the kernels take a tenth of a second) before ``main`` can catch one, and numpy's C
    code turns a KeyboardInterrupt raised inside its imports into an ImportError with a page of
    advice. An ignored SIGINT (a background job) stays ignored."""
    held: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    try:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    except ValueError:  # imported outside the main thread, which alone receives signals
        previous = None
    try:
        yield
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
    if held:
        raise SystemExit(EXIT_INTERRUPTED)


with _ctrl_c_held():
    import argparse
    import io
    import json
    import os
    import sys
    import traceback
    from collections.abc import Mapping
    from concurrent.futures import BrokenExecutor
    from dataclasses import asdict
    from typing import Any

    from . import __version__
    from .analysis import HandAnalysis, analyze_hand
    from .cards import format_card, parse_cards
    from .errors import MeldmindError, json_type, parse_json, signed
    from .variants import VARIANTS, json_numbers, seed_value

SAMPLE_HANDS = {
    "gin": ["AS 2S 3S 7C 7D 7H KD 9C 4H 5H", "AS 4S 5S 6S 3C 5D 6D 3H 4H 5H 6H"],
    "cardverse": ["QS KS AS 2C 3C 4C 9D", "AS 2S 3S 4H 4D 4C 9D"],
    "rami": ["5H 6H JK1 QS KS AS 2C 2D 2S 9C 9D 10H 4C", "AH 2H 3H 7S 8S 9S 10S KC KD KH JK2 4D 6C"],
    "kirolo": ["FI05a WA05a EA05a FI06 FI07 FI08 WA04 JOKER WA06 ME12 EXCHANGE", "FI07a FI07b FI08a FI09 WA07 EA07 ME01 ME02"],
}


def _canonical(variant: str, hand: str) -> str:
    """The hand as the engine spells it (``th`` -> ``10H``, ``FI6`` -> ``FI06a``)."""
    return " ".join(format_card(variant, card) for card in parse_cards(variant, hand))


def _describe(variant: str, hand: str, analysis: HandAnalysis) -> str:
    lines = [f"{variant:<10} {_canonical(variant, hand)}"]
    for meld in analysis.melds:
        jokers = f"  (joker = {', '.join(meld.joker_stands_for)})" if meld.joker_stands_for else ""
        lines.append(f"{'':<10}   {meld.kind:<5} {' '.join(meld.cards)}{jokers}")
    points = analysis.deadwood_points
    unit = "value" if variant == "kirolo" else "point" if points == 1 else "points"
    count = analysis.deadwood_count
    if count:
        lines.append(f"{'':<10}   deadwood {' '.join(analysis.deadwood)}: "
                     f"{count} card{'s' * (count != 1)}, {points} {unit}")
    else:
        lines.append(f"{'':<10}   deadwood: none")
    if analysis.action_cards:
        lines.append(f"{'':<10}   action cards {' '.join(analysis.action_cards)}: "
                     f"in no meld, counted in no deadwood")
    if analysis.opening_points is not None:
        lines.append(f"{'':<10}   opening {analysis.opening_points} points"
                     f" ({'can' if analysis.can_open else 'cannot'} open)")
    return "\n".join(lines)


def _options_flag(text: str | None, spec: Mapping[str, tuple[type, Any, Any]]
                  ) -> dict[str, Any] | None:
    """The options of ``--options`` (None when not given), named in ``spec``: JSON, so read as a
    game record's are (``50.0`` is 50); its errors name the flag."""
    if text is None:
        return None
    options = parse_json(text, "--options JSON")
    if not isinstance(options, dict):
        raise MeldmindError(f"--options must be a JSON object, not {json_type(options)}")
    return json_numbers(spec, options)


def _analyze(args: argparse.Namespace) -> int:
    options = _options_flag(args.options, VARIANTS[args.variant].options if args.variant else {})
    if args.samples and args.cards:
        raise MeldmindError("give cards or --samples, not both")
    if args.samples:
        jobs = [(v, h) for v, hands in SAMPLE_HANDS.items() if args.variant in (None, v)
                for h in hands]
    elif args.variant and args.cards:
        jobs = [(args.variant, " ".join(args.cards))]
    else:
        raise MeldmindError("give a variant and cards, or --samples")
    if options is not None and not args.variant:
        raise MeldmindError("--options belong to a variant: name one")
    results = [(v, h, analyze_hand(v, h, options=options)) for v, h in jobs]
    if args.json:
        _say(json.dumps([{"variant": v, "hand": _canonical(v, h), **asdict(a)}
                         for v, h, a in results], indent=2))
    else:
        _say("\n\n".join(_describe(v, h, a) for v, h, a in results))
    return 0


def _arena(args: argparse.Namespace) -> int:
    from .game import game_module
    from .tournament import arena, format_table
    result = arena(args.variant, args.level_a, args.level_b, deals=args.deals, seed=args.seed,
                   processes=args.processes, budget_ms=args.budget_ms, iterations=args.iterations,
                   options=_options_flag(args.options, game_module(args.variant).OPTIONS),
                   progress=not args.json or sys.stderr.isatty(), backend=args.backend)
    _say(json.dumps(result.to_json(), indent=2) if args.json else format_table([result]))
    return 0


def _hint(args: argparse.Namespace) -> int:
    from .ai import check_budget, level_name, suggest, warm_up

    # the flags hold for every observation: a bad one is an error now, not an answer per line
    level_name(args.level)
    check_budget(args.iterations, args.budget_ms)
    seed_value(args.seed)

    def answer(observation: bytes) -> dict[str, Any]:
        return suggest(observation, level=args.level, budget_ms=args.budget_ms,
                       iterations=args.iterations, seed=args.seed).to_json()

    # stdin is read as bytes: the JSON reader reports bytes that are not UTF-8 as malformed JSON
    stdin = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()    # None when closed
    if not args.lines:
        try:
            reply = answer(stdin.read())
        except MeldmindError as error:   # the flags were fine: the observation is at fault
            return _fail(error, EXIT_REFUSED)
        _say(json.dumps(reply, indent=2))
        return 0
    # A server keeps one process (numba loaded once, before the first request, which then gets
    # its whole budget) and gets an answer line per request line; a bad request answers
    # {"error": ...} and the process goes on. So does a request that meets a meldmind bug: its
    # traceback goes to stderr, and the other requests are still answered.
    warm_up(args.level)
    for line in stdin:
        if line.strip():
            try:
                # without its line ending, a request's JSON errors point into its one line
                reply = answer(line.rstrip(b"\r\n"))
            except MeldmindError as error:
                reply = {"error": str(error)}
            except Exception as error:      # noqa: BLE001 - one request must not stop the server
                traceback.print_exc()
                reply = {"error": f"meldmind bug ({type(error).__name__}: {error}); "
                                  "please report it with this request"}
            print(json.dumps(reply), flush=True)
    return 0


# (variant, level A, level B, deal pairs): the search levels play fewer deals at their
# default budget so that `make run` stays short; CardVerse games go to 50 points here.
DEMO_MATCHES = [("cardverse", "easy", "beginner", 40), ("cardverse", "normal", "easy", 40),
                ("cardverse", "expert", "normal", 6), ("gin", "easy", "beginner", 40),
                ("gin", "normal", "easy", 40), ("gin", "expert", "normal", 10)]
DEMO_OPTIONS = {"cardverse": {"target_score": 50}, "gin": {}}
DEMO_HISTORY = 12   # moves played before the demo's hint


def _demo(args: argparse.Namespace) -> int:
    from .ai import suggest
    from .game import new_game
    from .tournament import arena, format_table
    results = [arena(variant, a, b, deals=deals, seed=args.seed, options=DEMO_OPTIONS[variant])
               for variant, a, b, deals in DEMO_MATCHES]
    _say("Mirrored-deal arena (every deal played twice, seats swapped; search levels at their "
         "default budget; CardVerse to 50 points)\n")
    _say(format_table(results))
    game = new_game("gin", seed=args.seed)
    while True:     # a few turns of normal play, up to a discard with some history behind it
        seat = game.to_move
        assert seat is not None, "no gin hand ends within the demo's first turns"
        observation = game.observation(seat)
        if observation["phase"] == "discard" and len(observation["history"]) >= DEMO_HISTORY:
            break
        game.play(suggest(observation, level="normal", seed=args.seed).move)
    hint = suggest(observation, level="master", seed=args.seed)
    recent = ", ".join(f"seat {e['seat']} {e['move']}" + (f" {e['card']}" if "card" in e else "")
                       for e in observation["history"][-6:])
    _say(f"\nA hint for gin seat {seat} after {recent}; it holds {' '.join(observation['hand'])}:")
    _say(f"  {hint.explanation}")
    for alternative in hint.alternatives:
        _say(f"    {alternative.move.text:<14} {signed(alternative.value, 2)}")
    return 0


LEVELS_HELP = "beginner, easy, normal, expert or master (aliases: kolay, zor, ...)"
HINT_EPILOG = (f"exit status: 0 with the hint printed; {EXIT_USAGE} for bad flags, before "
               f"stdin is read; {EXIT_REFUSED} when the observation is refused (the reason on "
               f"stderr); {EXIT_INTERRUPTED} when interrupted (Ctrl-C). With --lines a refused "
               f"observation is answered by {{\"error\": ...}} on its line, and the status is 0 "
               f"at the end of the input.")


class _SubcommandParser(argparse.ArgumentParser):
    """A subcommand's parser that reports arguments it does not take itself, with its own
    usage: argparse leaves them to the top-level parser, whose usage does not show them."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def build_parser() -> argparse.ArgumentParser:
    examples = __doc__.split("\n\n", 1)[1]
    parser = argparse.ArgumentParser(
        prog="meldmind", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Rummy-family card games: hand analysis, AI arenas and move hints.",
        epilog="examples:\n" + examples)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True,
                                     parser_class=_SubcommandParser)
    analyze = commands.add_parser("analyze", help="best partition of a hand into melds",
                                  description="The best partition of a hand into melds: its "
                                              "melds, deadwood and points, by the variant's rules.")
    analyze.add_argument("variant", nargs="?", choices=list(VARIANTS))
    analyze.add_argument("cards", nargs="*", help="cards, e.g. AS 10H QD (or one quoted string)")
    analyze.add_argument("--options", help='variant options as JSON, e.g. \'{"ace_high": true}\'')
    analyze.add_argument("--samples", action="store_true",
                         help="analyze sample hands of the variant (of every variant if none is named)")
    analyze.add_argument("--json", action="store_true", help="print JSON")
    analyze.set_defaults(run=_analyze)

    from .game import GAME_MODULES
    arena = commands.add_parser(
        "arena", help="two levels on mirrored deals",
        description="Level A against level B on mirrored deals (each deal played twice, seats "
                    "swapped; with CardVerse's num_players 3 or 4, once for every way of "
                    "sharing the seats between A and B: 6 or 14 games), with a progress bar, "
                    "then a table: A's win rate over the decided games with its 95% Wilson "
                    "interval, the mean score difference and the Elo difference.")
    arena.add_argument("variant", choices=list(GAME_MODULES))
    arena.add_argument("level_a", help=LEVELS_HELP)
    arena.add_argument("level_b", help="the level A plays against")
    arena.add_argument("--deals", type=int, default=1000,
                       help="deals, each played twice, or 6 or 14 times with 3 or 4 seats "
                            "(default: 1000)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the deals and the searches (default: 0)")
    arena.add_argument("--processes", type=int, default=None,
                       help="worker processes (default: one per core; with 1 the games run in "
                            "this process, and Ctrl-C waits for the move under way), or Ray "
                            "tasks at a time")
    arena.add_argument("--backend", default="auto", choices=["auto", "processes", "ray"],
                       help="where the games run: 'processes' (local), 'ray' (Ray tasks on the "
                            "cluster of RAY_ADDRESS, else a local Ray), or 'auto' (the default: "
                            "Ray when RAY_ADDRESS is set, else processes)")
    arena.add_argument("--budget-ms", type=float, default=None,
                       help="search time per decision, in ms (at least 16 determinizations)")
    arena.add_argument("--iterations", type=int, default=None,
                       help="determinizations per decision, 1 to 10,000,000 (with --budget-ms: "
                            "at most this many)")
    arena.add_argument("--options", default=None,
                       help='game options as a JSON object, e.g. \'{"target_score": 20}\'')
    arena.add_argument("--json", action="store_true",
                       help="print JSON: the figures and the settings they were played under "
                            "(the progress bar still goes to stderr when it is a terminal)")
    arena.set_defaults(run=_arena)

    hint = commands.add_parser(
        "hint", help="suggest a move for an observation JSON on stdin", epilog=HINT_EPILOG,
        description="Reads an observation (docs/json-protocol.md, in meldmind's sources and "
                    "sdist) of the seat to move and prints the suggested move as JSON, with its "
                    "value, the alternatives and a plain explanation. Without --budget-ms or "
                    "--iterations a search level searches its default number of determinizations "
                    "(README: Strength).")
    hint.add_argument("--level", default="master", help=LEVELS_HELP + " (default: master)")
    hint.add_argument("--budget-ms", type=float, default=None,
                      help="search time, in ms (the search runs at least 16 determinizations)")
    hint.add_argument("--iterations", type=int, default=None,
                      help="determinizations, 1 to 10,000,000 (with --seed: a reproducible "
                           "hint; with --budget-ms: at most this many)")
    hint.add_argument("--seed", type=int, default=None,
                      help="seed of the search (default: a fresh one for each hint)")
    hint.add_argument("--lines", action="store_true",
                      help="JSON Lines: an observation per input line, an answer per output line")
    hint.set_defaults(run=_hint)

    demo = commands.add_parser(
        "demo", help="short arenas on both games, then one hint",
        description="Short mirrored arenas of the AI levels on CardVerse and gin, with progress "
                    "bars and a results table, then a master hint for a sample gin position, "
                    "with its explanation (about 20 s here, and 40 s more the first time, while "
                    "numba compiles the kernels of both games; longer on a busy machine).")
    demo.add_argument("--seed", type=int, default=0,
                      help="seed of the deals, the searches and the sample position (default: 0)")
    demo.set_defaults(run=_demo)
    return parser


# what a stdout whose encoding lacks them (a C locale's ASCII) shows for the table's dashes
_ASCII_SPELLING = str.maketrans({"\u2013": "-", "\u2014": "-"})


def _say(text: str) -> None:
    """``print`` to stdout, which spells the table's dashes in ASCII where its encoding lacks
    them (any other such character a '?') rather than fail once the games are played."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = text.translate(_ASCII_SPELLING).encode(encoding, "replace").decode(encoding)
    print(text)


def _stop_writing_stdout() -> None:
    """Points stdout at /dev/null, so that the interpreter's last flush of what could not be
    written fails no more (it would print a traceback and exit 120)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _fail(error: Exception | str, code: int) -> int:
    print(f"meldmind: error: {error}", file=sys.stderr)
    return code


def _one_line(error: Exception) -> str:
    """A pool's error on one line: loky's spreads its worker's exit codes over a paragraph."""
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())


def _handle_pending_signals() -> None:
    """Python runs a signal's handler between bytecodes, and entering a Python function is such
    a point. A Ctrl-C that came as stdin closed (a supervisor stopping ``hint --lines``) is
    still pending when the command returns; called in ``main``'s ``try``, it stops the process
    with status 130 here, instead of in the interpreter's shutdown, which ignores it and exits
    0."""


def main(argv: list[str] | None = None) -> int:
    if sys.stderr is None:      # started with it closed (2>&-): progress and errors go nowhere
        sys.stderr = open(os.devnull, "w")
    try:
        args = build_parser().parse_args(argv)
        if sys.stdout is None:  # closed (>&-): refused before an arena plays for nothing
            return _fail("standard output is closed, so the result would be lost", EXIT_FAILED)
        code = args.run(args)
        sys.stdout.flush()      # a full disk fails here, while an error line can still say so
        _handle_pending_signals()   # the call itself is the check: see its docstring
        return code
    except MeldmindError as error:
        return _fail(error, EXIT_USAGE)
    except BrokenExecutor as error:   # an arena's worker died (killed, out of memory)
        return _fail(_one_line(error), EXIT_FAILED)
    except BrokenPipeError:     # the reader left (``| head``): stop without a traceback
        _stop_writing_stdout()
        return EXIT_FAILED
    except OSError as error:    # stdout on a full disk, say: one line, not a traceback
        try:
            sys.stdout.flush()
        except OSError:         # stdout is what failed: its last flush at exit would fail again
            _stop_writing_stdout()
        return _fail(error, EXIT_FAILED)
    except KeyboardInterrupt:   # Ctrl-C, in any command: stop without a traceback
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
