"""The layout ARCHITECTURE.md describes, kept: the rules the redesign of `bot/` set itself.

Read from the source with `ast`, so a change that breaks one of them fails here with the
class, the line or the import that does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_METHODS = 24
""""About twenty" methods a class (issue 13), with a little room."""
MAX_CLASS_LINES = 500
ROOMS = (
    "bot.tables",
    "bot.lobby",
    "bot.screens",
    "bot.computers",
    "bot.daily",
    "bot.replays",
    "bot.standings",
)
"""The rooms `bot/tables/` was split into by job (issue 52, item 5)."""
ROOM_FOLDERS = tuple(room.replace(".", "/") for room in ROOMS)
FOR_TOURNAMENTS = {
    "bot.tables.desk",
    "bot.tables.model",
    "bot.tables.config",
    "bot.screens.render",
}
"""What `bot/tournaments/` may import of the rooms: the narrow interface (`desk`) and the
shared vocabulary (the table's model and settings, the rules' names), never the registry,
the clock, the lobby, the screens that show or the computers."""


def modules(package: str) -> Iterator[tuple[Path, ast.Module]]:
    """Every module of `package` (a folder, or one file)."""
    where = ROOT / package
    for path in [where] if where.is_file() else sorted(where.rglob("*.py")):
        yield path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


def test_no_class_in_bot_keeps_more_than_about_twenty_methods_or_500_lines() -> None:
    too_big = []
    for path, tree in modules("bot"):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                methods = sum(
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body
                )
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if methods > MAX_METHODS or lines > MAX_CLASS_LINES:
                    too_big.append(f"{path}:{node.lineno} {node.name}: {methods} methods, {lines}")
    assert too_big == []


def test_no_module_in_bot_reaches_into_another_objects_underscored_attributes() -> None:
    reaches = []
    for path, tree in modules("bot"):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                reaches.append(f"{path}:{node.lineno} {ast.unparse(node)}")
    assert reaches == []


def test_tournaments_use_tables_only_through_the_desk_and_the_shared_model() -> None:
    wrong = []
    for path, tree in modules("bot/tournaments"):
        for line, module in imported(tree):
            in_rooms = any(module == r or module.startswith(f"{r}.") for r in ROOMS)
            if in_rooms and module not in FOR_TOURNAMENTS:
                wrong.append(f"{path}:{line} imports {module}")
    assert wrong == []


def test_the_engine_stays_pure_no_io_no_asyncio_no_telegram() -> None:
    forbidden = ("asyncio", "telegram", "aiosqlite", "bot", "storage", "sandbox", "socket")
    wrong = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("engine")
        for line, module in imported(tree)
        if module.split(".")[0] in forbidden
    ]
    assert wrong == []


def test_ratings_are_openskill_and_nothing_else() -> None:
    """`ratings/` is pure too: the standard library and OpenSkill, no I/O, no storage."""
    import sys

    wrong = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("ratings")
        for line, module in imported(tree)
        if module.split(".")[0] not in ("openskill", *sys.stdlib_module_names)
        or module.split(".")[0] in ("asyncio", "socket", "sqlite3")
    ]
    assert wrong == []


def test_the_domain_is_records_on_the_engine_and_ratings() -> None:
    """`domain/` (what storage hands out and the bot reads) builds on the standard
    library, `engine` and `ratings` only: storage and the bot both import it, and it
    imports neither, so storage never reaches into the bot for a type."""
    import sys

    wrong = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("domain")
        for line, module in imported(tree)
        if module.split(".")[0] not in ("engine", "ratings", "domain", *sys.stdlib_module_names)
        or module.split(".")[0] in ("asyncio", "socket", "sqlite3")
    ]
    assert wrong == []


def test_storage_imports_neither_the_bot_nor_the_sandbox() -> None:
    wrong = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("storage")
        for line, module in imported(tree)
        if module.split(".")[0] in ("bot", "sandbox", "telegram")
    ]
    assert wrong == []


def test_only_storage_talks_to_the_database() -> None:
    wrong = [
        f"{path}:{line} imports {module}"
        for package in ("bot", "domain", "engine", "ratings", "sandbox")
        for path, tree in modules(package)
        for line, module in imported(tree)
        if module.split(".")[0] in ("aiosqlite", "sqlite3", "asyncpg")
    ]
    assert wrong == []


CORE_MAY_IMPORT = ("bot.core", "bot.i18n", "bot.basics", "bot.tables.model", "engine", "domain")
"""What the table core (`bot/core/`) builds on: itself, the words, the table's model, the
engine and the records storage hands out (`domain`). Never Telegram, the Telegram adapter,
the table page, nor the database."""


def test_the_core_knows_no_telegram_and_no_adapter() -> None:
    import sys

    wrong = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("bot/core")
        for line, module in imported(tree)
        if module.split(".")[0] not in sys.stdlib_module_names
        and not any(module == m or module.startswith(f"{m}.") for m in CORE_MAY_IMPORT)
    ]
    assert wrong == []
    forbidden = [
        f"{path}:{line} imports {module}"
        for path, tree in modules("bot/core")
        for line, module in imported(tree)
        if module.split(".")[0] == "telegram" or module.startswith(("bot.telegram", "bot.live"))
    ]
    assert forbidden == []


def test_the_core_imports_nothing_that_imports_telegram() -> None:
    """Loaded alone, the core brings in neither python-telegram-bot nor an adapter."""
    import subprocess
    import sys

    code = (
        "import sys; import bot.core.runner, bot.core.tournament; "
        "bad = sorted(m for m in sys.modules if m == 'telegram' or m.startswith("
        "('telegram.', 'bot.telegram', 'bot.live', 'bot.screens.screens', 'bot.rooms'))); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _imports_of(package: str, forbidden: tuple[str, ...]) -> list[str]:
    """Every import in `package` of a module in (or under) one of `forbidden`."""
    return [
        f"{path}:{line} imports {module}"
        for path, tree in modules(package)
        for line, module in imported(tree)
        if any(module == f or module.startswith(f + ".") for f in forbidden)
    ]


def test_the_table_page_knows_nothing_of_telegram() -> None:
    """`bot/live/` is an adapter beside the Telegram one: it sends typed commands to the
    tables' entry points, never a callback string through the Telegram handlers."""
    assert _imports_of("bot/live", ("telegram", "bot.telegram", "bot.rooms")) == []


ADAPTERS = ("telegram", "bot.telegram", "bot.live")
"""python-telegram-bot and the two adapters (the Telegram one and the table page)."""


def test_the_core_the_rooms_and_the_tournaments_import_no_adapter() -> None:
    """Every module of `bot/core`, the rooms and `bot/tournaments` imports nothing from
    Telegram or an adapter: what they say goes through a port (`bot.chats.Chats`, the
    screens' `Display`) or an effect, and the adapters import them, never the other way round."""
    wrong = [
        found
        for package in ("bot/core", *ROOM_FOLDERS, "bot/tournaments")
        for found in _imports_of(package, ADAPTERS)
    ]
    assert wrong == []
    assert _imports_of("bot/chats.py", ADAPTERS) == []


def test_the_adapters_are_given_what_they_call_never_the_rooms() -> None:
    """Handlers and the page's server are given their collaborators when they are wired
    (`bot.rooms.wire_handlers`, `Rooms.page_server`): nothing in `bot/telegram` or
    `bot/live` imports the wiring, and a handler's typed context holds neither the rooms
    nor storage."""
    assert _imports_of("bot/telegram", ("bot.rooms", "bot.app")) == []
    assert _imports_of("bot/live", ("bot.rooms", "bot.app")) == []
    from bot.telegram.context import BotData

    limits = {"command_limiter", "press_limiter", "move_limiter", "group_posts"}
    assert set(vars(BotData())) == {"settings", "tuning", *limits}


SCREEN_MODULES = (
    "bot/screens/seat_screen.py",
    "bot/screens/parts.py",
    "bot/screens/render.py",
    "bot/computers/coach_words.py",
    "bot/tables/model.py",
)
"""The screens as data and words: drawn by the adapters, knowing neither."""


def test_the_screens_know_neither_telegram_nor_the_page() -> None:
    wrong = [
        found
        for name in SCREEN_MODULES
        for found in _imports_of(name, ("telegram", "bot.telegram", "bot.live"))
    ]
    assert wrong == []
    assert all((ROOT / name).is_file() for name in SCREEN_MODULES)


SHOWING_MODULES = (
    "bot/screens/screens.py",
    "bot/lobby/lobby.py",
    "bot/lobby/rules_menu.py",
    "bot/tables/closing.py",
    "bot/tables/play.py",
)
"""The modules that show screens: they hand them, as data, to the `Display` port
`screens` declares, which the Telegram adapter implements (`bot.telegram.display`)."""


def test_the_tables_show_screens_through_a_port_and_import_no_telegram() -> None:
    """Issue 31: `Screens` decides what each chat shows and sends it through its `Display`;
    drawing and sending (the outbox, keyboards, Telegram's errors) are the adapter's."""
    wrong = [
        found
        for name in SHOWING_MODULES
        for found in _imports_of(name, ("telegram", "bot.telegram", "bot.live"))
    ]
    assert wrong == []
    assert all((ROOT / name).is_file() for name in SHOWING_MODULES)


def test_nothing_strips_html_for_the_page() -> None:
    """The page's words are written as text (`bot.screens.parts.PLAIN`), never made as
    Telegram's HTML and stripped: no ``html.unescape`` in `bot/`, no ``html`` in `bot/live`."""
    wrong = [
        f"{path}:{node.lineno} {ast.unparse(node)}"
        for path, tree in modules("bot")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "unescape"
    ]
    wrong += _imports_of("bot/live", ("html",))
    assert wrong == []


def test_each_command_of_the_core_says_what_it_does() -> None:
    """Issue 31, item 4: the runner asks the command it is given (`command.decide(table)`),
    so a card press runs its own decision, not a list of every command's cases: each
    command of the core (a `bot.core.commands.Command`) decides for itself."""
    tree = dict(modules("bot/core/commands.py"))[Path("bot/core/commands.py")]
    commands = [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(b, ast.Name) and b.id == "Command" for b in node.bases)
    ]
    assert len(commands) >= 20
    undecided = [
        node.name
        for node in commands
        if not any(
            isinstance(item, ast.FunctionDef) and item.name == "decide" for item in node.body
        )
    ]
    assert undecided == []
    runner = (ROOT / "bot/core/runner.py").read_text(encoding="utf-8")
    assert "command.decide(table)" in runner and "match command" not in runner


HTML_WRITERS = ("parts",)
"""Where the screens keep the ways a part is written (`parts.HTML`, `parts.PLAIN`), for
the adapters to use."""


def test_the_rooms_make_no_html() -> None:
    """Issue 31, item 2: the rooms make sentences as data (`Msg`s, `Name`s); only the
    adapters write them (``/scores``, ``/stats``, ``/rules``, ``/rating``, the turn clock's
    nudges too): no module of it escapes a name (``who``, ``esc``, ``html.escape``) or
    writes with `parts.HTML`."""
    wrong = []
    for path, tree in (found for room in ROOM_FOLDERS for found in modules(room)):
        if path.stem in HTML_WRITERS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("who", "esc", "escape"):
                wrong.append(f"{path}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.Name) and node.id in ("HTML", "who", "esc"):
                wrong.append(f"{path}:{node.lineno} {node.id}")
    assert wrong == []
    render = (ROOT / "bot/screens/render.py").read_text(encoding="utf-8")
    for helper in ("def rules_text", "def hand_result(", "def who(", "def esc("):
        assert helper not in render


def test_every_value_in_a_tournament_sentence_is_escaped_on_the_way_in() -> None:
    """Issue 50, item 11: the tournaments write Telegram's HTML, and a person's own words
    (an unknown option, a time zone, a username) must never be markup Telegram refuses.
    So they make their sentences only with `render.said`, which escapes every text value
    that is not `Html` already: no ``msg``, ``msg_plural`` or ``Msg(`` of their own, and no
    ``tr(…)`` given values but through ``said``."""

    def calls(node: ast.AST) -> Iterator[ast.Call]:
        if isinstance(node, ast.FunctionDef) and node.name == "said":
            return  # the one place that makes a `Msg`, from escaped values
        if isinstance(node, ast.Call):
            yield node
        for child in ast.iter_child_nodes(node):
            yield from calls(child)

    wrong = [
        f"{path}:{call.lineno} {ast.unparse(call)[:60]}"
        for path, tree in modules("bot/tournaments")
        for call in calls(tree)
        if isinstance(call.func, ast.Name)
        and (
            call.func.id in ("msg", "msg_plural", "Msg")
            or (call.func.id == "tr" and bool(call.keywords))
        )
    ]
    assert wrong == []


ROOMS_MAY_USE: dict[str, tuple[str, ...]] = {
    "bot.tables": ("bot.computers.thinker", "bot.lobby", "bot.screens", "bot.standings.rating"),
    "bot.lobby": ("bot.screens", "bot.tables"),
    "bot.screens": ("bot.tables.model", "bot.tables.registry", "bot.computers.coach_words"),
    "bot.computers": ("bot.screens", "bot.tables"),
    "bot.daily": ("bot.screens", "bot.tables"),
    "bot.replays": ("bot.screens",),
    "bot.standings": ("bot.screens", "bot.tables"),
}
"""What each room may import of the others: the screens read a table (its model, the
registry's lookups, the coach's words) and act on nothing; the daily deal, the replays and
the standings are used by the adapters and the wiring alone (and by a table's play and
closing, for a game's rating changes); a table calls on the computers' pool, never on the
coach."""


def test_the_rooms_are_packages_that_say_their_job_and_use_what_they_may() -> None:
    """Issue 52, item 5: `bot/tables/` split by job, each room a package whose docstring
    says what it holds, importing of the other rooms only what `ROOMS_MAY_USE` lets it."""
    assert set(ROOMS_MAY_USE) == set(ROOMS)
    for folder in ROOM_FOLDERS:
        init = ROOT / folder / "__init__.py"
        assert init.is_file(), folder
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), folder
    wrong = [
        f"{path}:{line} imports {module}"
        for room, allowed in ROOMS_MAY_USE.items()
        for path, tree in modules(room.replace(".", "/"))
        for line, module in imported(tree)
        if any(module == r or module.startswith(f"{r}.") for r in ROOMS)
        and not any(module == a or module.startswith(f"{a}.") for a in (room, *allowed))
    ]
    assert wrong == []


PACKAGES = ("engine", "ratings", "domain", "storage", "bot", "sandbox")


def _import_graph() -> dict[str, set[str]]:
    """Each module of the project and the project's modules it imports, wherever the
    import stands (a function's body, ``if TYPE_CHECKING``): a cycle a type checker or a
    reader must untangle is a cycle too."""
    names = {}
    for package in PACKAGES:
        for path, tree in modules(package):
            name = ".".join(path.with_suffix("").parts).removesuffix(".__init__")
            names[name] = (path, tree)

    def project_module(dotted: str) -> str | None:
        while dotted and dotted not in names:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, (path, tree) in names.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            for target in targets:
                found = project_module(target)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def test_no_module_imports_itself_round_a_cycle() -> None:
    """Issue 52, item 5: no import cycle anywhere (two were: the table model, the seat
    screen, the coach's words and the core's commands; storage's database and rating)."""
    graph = _import_graph()
    cycles: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycles.append(path[path.index(name) :])
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []
