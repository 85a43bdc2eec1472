"""The deal the tiebreaker tests stand on (tests/earth/test_env.py, tests/training/test_evaluate.py, tests/test_play.py)."""

from __future__ import annotations

from tabletop_envs.core.arena import deal_seed, play_game_standings
from tabletop_envs.core.policy import RandomPolicy, policy_rng
from tabletop_envs.core.registry import make_game

#: seed 80's first deal, random against random with 2 players, ends level on VP and a tiebreaker decides it.
#: It was seed 20, then 193, until rule changes made each deal a plain win and the tests proved nothing (found by an audit)
VP_TIE_SEED = 80


def assert_the_first_deal_is_a_vp_tie() -> None:
    """Fails loudly when rule changes take the tie away, instead of leaving the tests with nothing to decide."""
    game = make_game("earth_v0", num_players=2, reward="vp_margin")
    returns, _, _ = play_game_standings(game, [RandomPolicy()] * 2, deal_seed(VP_TIE_SEED, 0), None,
                                        [policy_rng(VP_TIE_SEED, 0), policy_rng(VP_TIE_SEED, 1)])
    assert returns.tolist() == [0.0, 0.0], f"seed {VP_TIE_SEED}'s first deal is no longer a VP tie: pick another"
