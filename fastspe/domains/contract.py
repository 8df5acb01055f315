"""The ``Domain`` contract: everything the shared pipeline asks of a planning domain, and nothing more.

A domain is one folder (a package) holding a subclass of ``Domain`` and an instance of it, found through the
``fastspe.domains`` entry-point group (``fastspe.domains.registry``): the sliding puzzle and Sokoban are fastspe's
own, and a separate package adds a domain with no change to fastspe. The shared layers (scoring, stats, report,
runners, the command line, the file boundary) talk to a domain only through this class; they never name one.

What a domain gives, grouped as the pipeline meets it (``docs/domains.md`` is the guide for writing one):

- **identity and words**: ``name`` (``--domain``, the ``fastspe.domain`` key of every bank and verdicts file),
  ``title``, ``version``, the second stratum's column ``stratum`` (the first is ``depth``, the certified d*) and how
  tables and figures name it, what one bank row is called (``unit``), its error kinds and why each is illegal;
- **actions**: ``vocabulary`` (the tokens of an answer and their codes, ``fastspe.domains.vocabulary``);
- **banks**: the columns, the check every reader relies on (``check_bank``), the DataFrame view, designs and the
  builder (``load_design``, ``bank_pieces``) and the independent bank verifier (``verify_bank``);
- **answers**: the prompt (``render_prompt``, ``prompt_version``, ``prompt_sha256``), packing a bank for the compiled
  replay (``pack``) and the replay itself (``replay``), and an independent plain-Python replay (``verifier``) that
  shares no code with the kernels; what d* counts and an answer's cost (``cost_unit``, ``plan_costs``: moves unless
  the domain says otherwise);
- **baselines**: offline planners answering a bank (``planners``, ``baseline_responses``);
- **solving**: certified optima of given states (``solve``, ``solve_record``), when the domain has a solver;
- **verdicts**: columns of the domain's own after the shared ones (``verdict_extra_columns``, ``verdict_extras``);
- **viewing**: one answer replayed step by step (``trace``), for ``fastspe show`` and the report's example pages;
- **the report**: tables of the domain's own beside the paper's (``report_tables``);
- **the command line**: options the domain adds to a command (``options``), checked against the chosen domain;
- **the demo**: a small default bank (``demo_bank``).

A required member raises ``NotImplementedError`` here; an optional one has a default that says what it means.
Replay outputs and codes follow ``fastspe.domains.codes``: status 0 complete, 1 legal_noncompletion, 2 illegal;
error 0 none, 3 invalid_action, 4 format; 1, 2 and 5 upwards the domain's own illegal moves. ``h`` is a goal
distance estimate that is 0 exactly at the goal; replay reports its final value and its least over the legal prefix.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol, Sequence

from ..errors import ContractError
from .codes import SHARED_ERRORS
from .vocabulary import DIRECTIONS, Vocabulary

if TYPE_CHECKING:
    import numpy as np

    from .cards import CardNotes

__all__ = [
    "Domain",
    "Packed",
    "Option",
    "Design",
    "GivenBank",
    "BankVerification",
    "Ui",
    "Verifier",
    "VerifierBoard",
    "Playout",
    "STRATUM",
    "implemented_in",
    "prompt_hash",
]


class implemented_in:  # noqa: N801 - a descriptor, used like a function in a class body
    """A ``Domain`` member that another module of the domain holds, imported on first use, so that the module with the
    domain object stays light (``fastspe --help`` reads every domain's options, and imports neither numba nor pandas).

    ``implemented_in(".prompt:render_row")`` in a class body: the attribute ``render_row`` of the module ``prompt``
    beside the class's module (a leading dot; an absolute module path works too). A function is returned as it is,
    so it is called without ``self``; any other value (a prompt's version) is returned as the member's value.
    """

    def __init__(self, target: str):
        self.target = target
        self.module, _, self.attr = target.partition(":")
        self.package = ""

    def __set_name__(self, owner, name: str) -> None:
        self.package = owner.__module__.rpartition(".")[0]
        self.attr = self.attr or name

    def __get__(self, obj, owner=None):
        module = importlib.import_module(self.module, self.package or None)
        return getattr(module, self.attr)


def prompt_hash(text: str) -> str:
    """The sha256 (hex) of a prompt or prompt template, as run logs record it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Packed(Protocol):
    """A checked bank packed for its domain's replay kernel: the per-row arrays the shared layers read."""

    ids: Any  # pa.Array of str (m,), the board ids
    depth: np.ndarray  # int64 (m,), the certified d*
    cohort_code: np.ndarray  # int32 (m,), index into cohort_names
    cohort_names: Any  # pa.Array of str
    layout_index: np.ndarray  # int64 (m,), index into layout_names
    layout_names: Any  # pa.Array of str: the verdicts' ``layout`` of each row (a tag of what the state lives on)
    domain: str  # the name of the domain that packed it: scoring on other processes finds its replay by it

    def stratum_values(self) -> np.ndarray:  # int64 (m,), the second stratum
        ...

    def rows_of(self, board_ids) -> np.ndarray:  # bank rows of board ids (a pa.Array of str), -1 where unknown
        ...


@dataclass(frozen=True)
class Option:
    """A command-line option a domain adds to a command: ``flags`` and ``argparse.add_argument``'s keywords.

    The option is offered whatever ``--domain`` is (a bank's domain is known only once it is read), listed under the
    domain's name in ``--help``; given with a bank or ``--domain`` of another domain, the command refuses it.
    ``default`` must be what "not given" means (None unless the option has a natural default).
    """

    flags: tuple[str, ...]
    help: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.kwargs.get("dest") or self.flags[0].lstrip("-").replace("-", "_")


class Design(Protocol):
    """What a domain's bank design tells the command line before building: how many rows, from which seed."""

    total: int  # rows the design asks for
    seed: int


@dataclass(frozen=True)
class BankVerification:
    """What an independent bank verifier found (``Domain.verify_bank``); ``fastspe bank verify`` prints a ``FAIL ID:
    REASON`` line per failure, an ``UNPROVEN ID: REASON`` line per unproven row, then ``summary``, and exits 1 on a
    failure, 3 when some row is unproven (0 with ``--accept-unproven``), else 0.

    failures : (board_id, reason) of every row that failed a check
    unproven : (board_id, reason) of every row whose certificate replays but whose optimality the verifier did not
        prove
    summary : the closing line ("ok: all 400 boards verified (...)", "3 of 400 boards failed verification", ...)
    hint : how to prove the unproven rows (printed on stderr when some are and they are not accepted), or ""
    """

    failures: list[tuple[str, str]]
    unproven: list[tuple[str, str]] = field(default_factory=list)
    summary: str = ""
    hint: str = ""


@dataclass(frozen=True)
class GivenBank:
    """A bank of rows the command line names instead of a design (``Domain.given_bank``).

    total : rows to bank (for the progress display)
    pieces : ``pieces(progress)`` yields the bank's tables, as ``Domain.bank_pieces`` does
    what : how the command's closing line ends ("from levels.xsb")
    inputs : option -> file the rows are read from (``--out`` may not be one of them)
    """

    total: int
    pieces: Callable[[Callable[..., None]], Iterator]
    what: str
    inputs: Mapping[str, str] = field(default_factory=dict)


class Ui(Protocol):
    """How a domain's command code talks to the user (the command line gives one): plain lines on stdout or stderr,
    a warning, and a progress display per stage (``with ui.progress("solve", 100, "levels") as update:
    update(done)``)."""

    def say(self, text: str, err: bool = False) -> None: ...

    def warn(self, text: str) -> None: ...

    def progress(self, stage: str, total: int | None, unit: str): ...


class VerifierBoard(Protocol):
    """One bank row as an independent verifier re-derives it: what a verdict repeats from the bank."""

    cohort: str
    stratum: int  # the second stratum's value
    tag: str  # the verdicts' ``layout``
    depth: int


@dataclass(frozen=True)
class Verifier:
    """An independent plain-Python replay (importing none of the domain's kernels, packing or builder).

    boards : a checked bank table -> its rows keyed by board id (``VerifierBoard``s), each re-derived from the rules
    replay : (board, stored plan: one vocabulary symbol per action, ``?`` not an action) -> ``status, error_kind,
        first_error, final_h, min_h, revisits, goal_midway`` as plain values (names for status and error kind); and,
        optionally, the plan's cost under the key a board's ``cost_unit`` names (a board without one, or "moves":
        the cost is L) and any of the domain's ``verdict_extra_columns`` (compared; None: beyond the verifier's
        bound, counted as not re-derived)
    """

    boards: Callable[[Any], Mapping[str, VerifierBoard]]
    replay: Callable[[VerifierBoard, str], dict]


@dataclass(frozen=True)
class Playout:
    """Moves played from a bank row's start state, as a model's tool and the verifier's feedback tell it
    (``Domain.playout``): the legal prefix is applied, play stops at the first illegal move.

    applied : moves applied (the legal prefix)
    complete : the state after them is the goal
    state : that state, written as the domain's prompt writes states (the board before the illegal move, if any)
    illegal : 1-based number of the first illegal move, 0 when every move was legal
    action : that move's vocabulary symbol ("" when none)
    reason : why it is illegal, in words (``error_reasons``; "invalid action" for a token that is no move)
    """

    applied: int
    complete: bool
    state: str
    illegal: int = 0
    action: str = ""
    reason: str = ""


class Domain:
    """A planning domain with certified optima (see the module docstring). Subclass it, set the class attributes,
    implement the required methods, and register an instance under the ``fastspe.domains`` entry-point group."""

    # ---- identity and words ------------------------------------------------------------------------------------
    name: str = ""  # ``--domain`` and the ``fastspe.domain`` file metadata; lower case, letters, digits, - and _
    title: str = ""  # one line for ``fastspe domains`` and pages ("4x4 sliding puzzles with 0-3 blocked cells")
    version: str = ""  # the domain's own version (a plugin's package version; empty: the installed distribution's)
    stratum: str = ""  # the bank and verdicts column of the second stratum (``k``, ``boxes``); an integer column
    stratum_label: str = ""  # how tables and figures name it ("blocked cells k"); default: the column
    stratum_words: tuple[str, str] = ("", "")  # Table 4's caption and heading words; default: the label twice
    stratum_tex: str = ""  # the stratum's symbol in LaTeX math (``k``: ``$k=2$`` headers), "" to print it as text
    unit: str = "board"  # what one bank row is called in messages ("board", "level"); plural adds an s
    error_names: tuple[str, ...] = ("", "", "", "invalid_action", "format")  # error_kind name of each code
    error_reasons: Mapping[str, str] = {}  # why a move of each of the domain's error kinds is illegal, in words
    vocabulary: Vocabulary = DIRECTIONS

    # ---- banks ---------------------------------------------------------------------------------------------------
    bank_columns: tuple[str, ...] = ()  # the columns every bank row has, in file order
    optional_columns: tuple[str, ...] = ()  # columns some banks have (kept when a DataFrame is checked)
    state_columns: tuple[str, ...] = ()  # the columns that hold a row's start state (a bank's identity hashes them)
    summary_columns: tuple[str, ...] = ("cohort", "depth")  # ``fastspe bank show`` counts rows per these
    jsonl_banks: bool = False  # bank files may be JSONL (``jsonl_schema`` then gives the reader's types)
    jsonl_schema = None  # the Arrow schema a JSONL bank file is read with (``jsonl_banks``)
    default_design: str = "paper"  # what ``bank build`` builds without ``--design``
    build_preload: tuple[str, ...] = ()  # modules a build's tasks need, imported once by each worker process

    # ---- answers -------------------------------------------------------------------------------------------------
    prompt_version: str = ""
    prompt_sha256: str = ""  # ``prompt_hash`` of the prompt's template

    # ---- baselines and the demo ----------------------------------------------------------------------------------
    planners: tuple[str, ...] = ()  # offline baseline planners (``baseline:NAME``), the demo runs them all
    demo_text: str = ""  # what the demo builds, for its progress line ("the paper bank (400 certified boards)")

    # -------------------------------------------------------------------------------------------------------------

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.stratum and not cls.stratum_label:
            cls.stratum_label = cls.stratum
        if cls.stratum_label and cls.stratum_words == ("", ""):
            cls.stratum_words = (cls.stratum_label, cls.stratum_label)

    def __repr__(self) -> str:
        return f"<fastspe domain {self.name!r}>"

    def named(self, columns: Sequence[str]) -> list[str]:
        """Column names with ``STRATUM`` (the shared layers' placeholder for the second stratum) as this domain
        names it."""
        return [self.stratum if c == STRATUM else c for c in columns]

    # ---- banks ---------------------------------------------------------------------------------------------------

    def check_bank(
        self,
        table,
        source: str = "bank",
        unit: str = "row",
        line_of: Callable[[int], int] | None = None,
        meaning: bool = True,
        fresh: bool = False,
    ):
        """Check a bank table and return it in canonical types (``pa.Table`` with ``bank_columns`` first).

        Raise ``fastspe.boundary.errors.InputError`` naming ``source``, the row (``unit`` N, 1-based; ``line_of``
        maps a 0-based row to a file line) and the board id. ``meaning=False`` checks the schema only (columns,
        types, nulls, ranges: ``bank verify`` then names every failing row itself). ``fresh``: the table is a
        reader's own (its buffers may be kept as they are)."""
        raise NotImplementedError

    def bank_frame(self, table):
        """A checked bank table as the DataFrame users and planners see (default: ``table.to_pandas()``)."""
        return table.to_pandas()

    def bank_summary(self, frame):
        """``fastspe bank show``: a DataFrame of row counts (column ``boards``) per ``summary_columns``."""
        return frame.groupby(list(self.summary_columns), sort=True).size().reset_index(name="boards")

    def load_design(self, spec: str | None, seed: int | None = None) -> Design:
        """The design ``spec`` names: a design name of the domain (``default_design`` when None) or a JSON file;
        ``seed`` overrides the design's. Raise ``UserError`` naming what is wrong."""
        raise NotImplementedError(f"the {self.name} domain builds no banks from designs")

    def bank_pieces(self, design: Design, progress: Callable[..., None], executor=None, args=None) -> Iterator:
        """The rows of ``design`` as Arrow tables of the bank's columns, in bank order (the writer checks each with
        ``check_bank``); ``progress(done, total)`` as rows are made. ``executor``: a Dask client or local pool
        (``--workers``/``--scheduler``) to spread the work on, or None; ``args``: the command's options (this
        domain's ``options("bank build")`` among them), None from Python. The rows must be the same whatever the
        executor and the number of threads."""
        raise NotImplementedError(f"the {self.name} domain builds no banks")

    def given_bank(self, args, ui: Ui):
        """A bank of states the command line gives instead of a design (``bank build`` with one of this domain's
        options, ``args``), as a ``GivenBank``; None when the options ask for a design."""
        return None

    def verify_bank(self, table, args, ui: Ui) -> BankVerification:
        """Re-check every row of a bank (``table``: schema checked only) with code that shares nothing with the
        kernels, the solver or the builder: every failing row named, and the certificates' optimality proved."""
        raise NotImplementedError

    # ---- answers -------------------------------------------------------------------------------------------------

    def render_prompt(self, row: Mapping) -> str:
        """The prompt of one bank row (a mapping of its columns)."""
        raise NotImplementedError

    def prompt_fields(self, row: Mapping) -> dict[str, str]:
        """The named parts of the prompt of one bank row, for prompt variants (``fastspe.prompting``): templates
        use them by name (beside the row's columns), chain of thought rewrites the answer instruction. Keys:

        - ``rules``: the rules text (the lines between the first line and the answer instruction);
        - ``answer``: the answer instruction exactly as ``render_prompt`` writes it (one line, once in the prompt);
        - ``answer_form``: what follows ``MOVES:`` in words ("comma-separated U,D,L,R");
        - the states, written as the prompt writes them (``initial``, ``goal``, ``level``, ...), and any other
          part the domain names (``rows``, ``disks``, ...).

        A domain without it answers the paper prompt only (the variants are refused with one clear error)."""
        raise NotImplementedError(
            f"the {self.name} domain names no prompt parts (Domain.prompt_fields), so it runs the paper prompt only"
        )

    def prompts(self, frame) -> list[str]:
        """The prompt of every row of a bank DataFrame, in order (default: ``render_prompt`` per row)."""
        return [self.render_prompt(row) for row in frame.to_dict("records")]

    def pack(self, table) -> Packed:
        """A checked bank table packed for ``replay`` (``Packed``)."""
        raise NotImplementedError

    def replay(self, packed: Packed, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
        """Replay plan i (``codes[offsets[i]:offsets[i + 1]]``, uint8 action codes) on bank row ``rows[i]`` (int64),
        stopping at the first illegal action: (status int8, error_kind int8, first_error int64, final_h int32,
        min_h int32, revisits int64, goal_midway bool), each (n,). A code of ``vocabulary.invalid_code`` or above
        is an ``invalid_action``. Revisits = states visited - distinct states, the start included."""
        raise NotImplementedError

    def cost_unit(self, packed: Packed) -> str:
        """What the packed bank's d* counts, and so an answer's cost: "moves" (the default: the cost is the plan's
        length L) or a unit of the domain's own (Sokoban's "pushes"). economy = d*/cost, excess = cost - d*,
        optimal = complete and cost = d*; verdicts of a bank whose unit is not moves add the columns ``cost`` and
        ``cost_unit``."""
        return "moves"

    def plan_costs(
        self, packed: Packed, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray, status: np.ndarray
    ) -> np.ndarray:
        """int64 (n,): the cost of plan i (as ``replay`` takes them; ``status`` its replay's) in ``cost_unit(packed)``,
        read where the plan is complete. Called only when the unit is not moves (default: the plan lengths)."""
        return offsets[1:] - offsets[:-1]

    def playout(self, row: Mapping, plan: str) -> Playout:
        """Play ``plan`` (one vocabulary symbol per action, ``?`` for a token that is no action) from the start
        state of bank row ``row`` (a mapping of its columns) in plain Python, stopping at the first illegal action:
        what the tool-assisted and feedback protocols show the model. A domain without it runs one-shot only."""
        raise NotImplementedError(f"the {self.name} domain cannot play moves out for a model (Domain.playout)")

    @property
    def plays_out(self) -> bool:
        """Whether the domain implements ``playout``: the tools and feedback protocols refuse one that does not."""
        return type(self).playout is not Domain.playout

    verifier: Verifier | None = None  # the independent replay ``fastspe verdicts verify`` compares verdicts with

    # ---- verdict columns of the domain's own ---------------------------------------------------------------------

    verdict_extra_columns: tuple[str, ...] = ()  # int64 columns every verdict of this domain has, after the shared
    # which of them are where a plan failed in the domain's own sense: column -> its name in words; each holds a
    # 0-based move index as ``first_error`` does (negative: none), drawn beside the first illegal move in "where
    # plans fail" (``report.trajectories``)
    failure_positions: Mapping[str, str] = {}

    def verdict_extras(self, packed: Packed, rows: np.ndarray, replayed: Mapping[str, Any]) -> dict:
        """The ``verdict_extra_columns`` of answers replayed on bank rows ``rows``: name -> int64 array (n,).

        ``replayed`` holds the shared columns that parsing and replay gave (``status`` and ``moves`` as Arrow
        strings, ``first_error``, ...). Called where the replay runs (on an executor too), once per batch; the
        columns must depend only on each answer and its bank row. Default: none."""
        return {}

    # ---- baselines -----------------------------------------------------------------------------------------------

    def baseline_responses(self, frame, planner: str, trials: int = 3, seed: int = 0):
        """Answers of ``planner`` (one of ``planners``) to every row of a bank DataFrame: a DataFrame with
        ``board_id, condition, trial, response`` (and any metadata) per (row, trial), in bank order; each row's
        answers depend only on (seed, its row), so a slice of the bank gets the answers it gets in the whole."""
        raise NotImplementedError(f"the {self.name} domain has no baseline planners")

    # ---- solving -------------------------------------------------------------------------------------------------

    solver: str = ""  # one line on the exact solver for ``fastspe solve --help``; "" when the domain has none

    def solve(self, args, ui: Ui) -> dict:
        """``fastspe solve`` of the one state its options give: a JSON-able answer (length, moves, ...)."""
        raise NotImplementedError(f"the {self.name} domain has no solver")

    def record_solver(self, args, ui: Ui):
        """``fastspe solve --input``: a context manager giving a function from one input line (a dict) to the line
        plus its answer, or plus ``error`` (that line alone failed: unsolvable, a node limit, a bad line); it is called
        as ``solve(record, number)``, ``number`` the line's 1-based place among the input's lines."""
        raise NotImplementedError(f"the {self.name} domain has no solver")

    # ---- viewing and the report ----------------------------------------------------------------------------------

    trace_columns: tuple[str, ...] = ()  # the bank columns ``trace`` reads (example pages need them)

    def trace(self, bank_row: Mapping, verdict_row: Mapping):
        """One verdict replayed on its bank row, step by step: a ``fastspe.report.trace.Trace``."""
        raise NotImplementedError(f"the {self.name} domain has no viewer")

    def report_tables(self, verdicts, bank, conditions: Sequence[str]) -> list:
        """Tables of this domain's own for the report (``fastspe.report.tables.Table``), after the paper's."""
        return []

    # ---- the command line and the demo ---------------------------------------------------------------------------

    cli_options: Mapping[str, Sequence[Option]] = {}  # command ("bank build", "bank verify", "solve") -> options

    def options(self, command: str) -> Sequence[Option]:
        """The options this domain adds to ``command`` (``cli_options``)."""
        return tuple(self.cli_options.get(command, ()))

    def command_help(self, command: str) -> str | None:
        """What ``command`` does for this domain, shown above its options in ``--help`` (default: its solver for
        "solve", else nothing)."""
        return f"{self.title}; solver: {self.solver}" if command == "solve" and self.solver else None

    def demo_bank(self):
        """The demo's bank, an Arrow table of the bank's columns (default: the default design's bank)."""
        import pyarrow as pa

        return pa.concat_tables(self.bank_pieces(self.load_design(None), lambda *done: None))

    def warm_bank(self):
        """A small bank that runs the demo pipeline's kernels on the types the demo's bank does, for ``fastspe cache
        warm`` (default: the demo's bank; a domain whose demo bank takes seconds to build gives a smaller one)."""
        return self.demo_bank()

    # ---- inspect_ai ----------------------------------------------------------------------------------------------

    inspect_task: str = ""  # the inspect_ai task name of this domain (``fastspe/NAME``); default: ``NAME_planning``
    certificate_column: str = "certificate"  # the bank column an inspect sample's target is

    # ---- the Hugging Face Hub ------------------------------------------------------------------------------------

    def dataset_card_notes(self, table) -> CardNotes:
        """What the dataset card of an exported bank (``fastspe bank export --hub``; ``table``: the checked bank
        table) says of this domain (``fastspe.domains.cards``); default: its title only."""
        from .cards import CardNotes

        return CardNotes(pretty_name=self.title)


STRATUM = "stratum"  # the shared layers' name of the second stratum in column lists (``Domain.named``)
UNKNOWN_ERROR = "unknown"


def error_names_of(domain: Domain) -> tuple[str, ...]:
    """The domain's error names with the shared codes checked in their places."""
    names = tuple(domain.error_names)
    for code, name in SHARED_ERRORS.items():
        if len(names) <= code or names[code] != name:
            raise ContractError(f"domain {domain.name!r}: error_names[{code}] must be {name!r}")
    return names
