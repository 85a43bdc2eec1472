"""The heuristic bots decode the observation's scaled counts (soil / 40, castle HP / 10, points / 10, deck
sizes / 20) into exact whole numbers, so their moves do not hang on float rounding: the same under NumPy 1
(where ``np.float32(0.6) * 10`` is the float64 6.000000238...) and NumPy 2 (where NEP 50 keeps it float32, 6.0),
and the same for an observation handed over as a list (float64, like NumPy 1's arithmetic).

Found by a dependency-floor audit: with numpy 1.24 (allowed by ``numpy>=1.24``) the Terralore heuristic
played 6 of 60 seeded self-play games differently and the Earth heuristic 1 of 60 (4 seats): Earth read 7
soil as 6.9999998 and took a card costing 7 as unaffordable; Terralore saw a mutual kill as won or lost by
comparing 8.0000002 with 8.0000001.

A review found one more, the same under both NumPy versions: the Earth heuristic's sprout room (spaces / 6
minus sprouts / 6, times 6) read 8 of the 28 (spaces, sprouts) pairs a little low in float32 (3 spaces with 1
sprout as 1.9999999), so a room of 2 could look too small and its Watering choice took 2 soil where it would
place its sprouts."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import earth_v0, terralore_v0, travel_earth_v0
from tabletop_envs.core.policy import load_policy

CASES = [("terralore_v0", terralore_v0, {}, range(12)),
         ("travel_earth_v0", travel_earth_v0, {}, range(6)),
         ("earth_v0", earth_v0, {"num_players": 2}, range(3)),
         ("earth_v0", earth_v0, {"num_players": 4}, [52])]


@pytest.mark.parametrize("name,module,kwargs,seeds", CASES, ids=lambda c: c if isinstance(c, str) else None)
def test_a_heuristic_bot_moves_alike_on_float64_copies_of_its_observation(name, module, kwargs, seeds):
    bot = load_policy(f"{name}/heuristic", env=name)
    env = module.env(**kwargs)
    differ = []
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for step, _agent in enumerate(env.agent_iter()):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = bot.act(obs["observation"], obs["action_mask"], rng)
            as_list = bot.act(obs["observation"].tolist(), obs["action_mask"].tolist(), np.random.default_rng(0))
            wide = bot.act(obs["observation"].astype(np.float64), obs["action_mask"], np.random.default_rng(0))
            if not action == as_list == wide:
                differ.append((seed, step, action, as_list, wide))
            env.step(action)
    assert not differ, f"moves differ (seed, step, float32, list, float64): {differ[:5]}"


def test_the_earth_heuristic_reads_seven_soil_as_seven():
    bot = load_policy("earth_v0/heuristic", env="earth_v0")
    obs = np.zeros(bot.obs.size, np.float32)
    bot.obs.view(obs, "resources")[0, 0] = np.float32(7) * np.float32(1 / 40)
    assert bot._soil(obs) == 7 and bot._soil(obs.astype(np.float64)) == 7


def test_the_earth_heuristic_reads_sprout_and_growth_room_as_the_engine_counts_it():
    # tests/ is on sys.path (conftest.py) and tests/earth is a package: no sys.path entry of our own, which
    # stayed for the rest of the run and imported a second copy of the module ("scenario" beside "earth.scenario")
    from earth.scenario import after_setup, clear_tableau, put

    from tabletop_envs.earth.bots import _room

    bot = load_policy("earth_v0/heuristic", env="earth_v0")
    state = after_setup(2, 0)
    game_cat = state.game.cat
    flora = [c for c in range(len(game_cat.is_flora_l)) if game_cat.is_flora_l[c]]
    misread = []
    for spaces in sorted({game_cat.sprout_spaces_l[c] for c in flora}):
        card = next(c for c in flora if game_cat.sprout_spaces_l[c] == spaces)
        for sprouts in range(spaces + 1):
            for growth in range(game_cat.max_growth_l[card] + 1):
                clear_tableau(state, 0)
                put(state, 0, 5, card, sprouts=sprouts, growth=growth)
                cells = bot._my_cells(state.observation(0))
                got = (_room(cells, 5, -2, 6), _room(cells, 3, -1, 8))
                if got != (state.room(0, 5, "sprouts"), state.room(0, 5, "growth")):
                    misread.append((spaces, sprouts, growth, got))
    assert not misread, f"(spaces, sprouts, growth, room read): {misread[:5]}"
