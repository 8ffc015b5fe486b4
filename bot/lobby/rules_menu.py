"""The lobby's rules menu: its host (or an admin) changes the rules in the table's own
message; the chat's next tables keep the choice."""

from __future__ import annotations

from bot.basics import Person, UserError
from bot.core.commands import SetRules
from bot.core.runner import Runner
from bot.i18n import Msg, msg
from bot.screens.screens import Screens
from bot.tables.config import AdminCheck, require_host
from bot.tables.model import LEVELS, TARGETS, TIMERS, Table, TableOptions
from bot.tables.registry import TableRegistry
from domain.people import ChatSettings
from engine import Rules
from engine.rules import Variant
from storage import People


class RulesMenu:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        is_admin: AdminCheck,
        people: People,
        runner: Runner,
    ) -> None:
        self.registry = registry
        self.people = people
        self.screens = screens
        self.is_admin = is_admin
        self.runner = runner

    async def _menu_table(self, game_id: int, person: Person) -> Table:
        table = self.registry.lobby(game_id)
        if table.ui.table_message_id is None:
            raise UserError(msg("That button isn't valid any more."))
        # Both ways, like every change to the lobby: only its host or an admin.
        await require_host(table, person, self.is_admin)
        return table

    async def show(self, game_id: int, person: Person, show: bool) -> Msg:
        """Open the menu in the table's message (`show`), or go back to the lobby."""

        async def job() -> Msg:
            table = await self._menu_table(game_id, person)
            # A toast at once: the menu itself comes with the group's next edit, seconds
            # later under a group's pace (2.4-3.4 s measured: issue 51).
            self.screens.show_rules(table, show)
            return msg("⚙ Opening the rules…") if show else msg("« Back to the seats…")

        return await self.registry.send(game_id, job)

    async def set_rule(self, game_id: int, person: Person, option: str, value: str) -> Msg:
        async def job() -> Msg:
            table = self.registry.lobby(game_id)
            await require_host(table, person, self.is_admin)
            try:
                rules, options = changed_rules(table.rules, table.options, option, value)
            except ValueError:
                raise UserError(msg("That combination of rules isn't possible.")) from None
            await self.runner.run(table, SetRules(rules, options))
            # The chat's defaults only once the lobby is stored: a refusal of the lobby
            # leaves both as they were, one of the defaults leaves the table changed, as
            # stored and shown.
            try:
                await self.people.save_chat_settings(
                    ChatSettings(
                        chat_id=table.chat_id,
                        rules=rules.to_dict(),
                        turn_timer_s=options.turn_timer,
                        computer_level=options.computer_level,
                        track_cards=options.track_cards,
                        hints=options.hints,
                    )
                )
            finally:
                self.screens.show_rules(table)
            return msg("Rules changed.")

        return await self.registry.send(game_id, job)


def changed_rules(
    rules: Rules, options: TableOptions, option: str, value: str
) -> tuple[Rules, TableOptions]:
    """Rules and options after one change in the lobby's menu; `ValueError` if impossible."""
    variants: dict[str, tuple[Variant, str | None]] = {
        "standard": ("standard", None),
        "omnibus_jd": ("standard", "JD"),
        "omnibus_td": ("standard", "TD"),
        "complex": ("complex", None),
        "two_player": ("two_player", None),
    }
    if option == "players":
        return rules.with_players(int(value)), options
    if option == "variant":
        if value not in variants:
            raise ValueError(f"unknown variant {value}")
        return rules.with_variant(*variants[value]), options
    data = rules.to_dict()
    opts = options.to_dict()
    if option == "moon":
        data["moon"] = value
    elif option in ("queen", "first"):
        key = "queen_breaks_hearts" if option == "queen" else "no_points_on_first_trick"
        data[key] = value == "on"
    elif option == "target":
        if int(value) not in TARGETS:
            raise ValueError("unknown target")
        data["target"] = int(value)
    elif option == "timer":
        if int(value) not in TIMERS:
            raise ValueError("unknown timer")
        opts["turn_timer"] = int(value)
    elif option == "level":
        if value not in LEVELS:
            raise ValueError("unknown level")
        opts["computer_level"] = value
    elif option == "tracker":
        opts["track_cards"] = value == "on"
    elif option == "hints":
        opts["hints"] = value == "on"
    else:
        raise ValueError(f"unknown option {option}")
    data["pass_cycle"] = None
    return Rules.from_dict(data), TableOptions.from_dict(opts)
