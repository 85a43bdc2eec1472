"""Opponent pool mechanics: anchor shares, snapshot window, play-latest ratio, gating, seats, pickling."""

from __future__ import annotations

import pickle
from collections import Counter

import numpy as np
import pytest

from tabletop_envs import ConfigError
from tabletop_envs.core.onnx_policy import MLPPolicy

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.pool import HEURISTIC, RANDOM, SNAPSHOT, OpponentPool, WinRateGate  # noqa: E402
from training.train import SelfPlayEnv, episode_scores, learner_score  # noqa: E402


def _weights(n_obs=32, n_act=11, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(n_obs, 8)), rng.normal(size=8)), (rng.normal(size=(8, n_act)), rng.normal(size=n_act))]


def _draw(pool, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return [pool(rng) for _ in range(n)]


def test_without_snapshots_the_anchors_share_everything(toy):
    pool = OpponentPool(toy, random_weight=0.3, heuristic_weight=0.0)
    assert pool.probabilities() == {RANDOM: 1.0, HEURISTIC: 0.0, SNAPSHOT: 0.0}
    assert all(p.pool_tag == RANDOM for p in _draw(pool, 100))


def test_anchor_and_snapshot_shares_follow_the_weights(toy):
    pool = OpponentPool(toy, random_weight=0.25, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "tanh", steps=100)
    tags = Counter(p.pool_tag for p in _draw(pool))
    assert abs(tags[RANDOM] / 4000 - 0.25) < 0.03
    assert abs(tags[SNAPSHOT] / 4000 - 0.75) < 0.03


def test_window_keeps_only_the_last_k_snapshots(toy):
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0, window=3)
    for steps in (10, 20, 30, 40, 50):
        pool.add_snapshot(_weights(seed=steps), "tanh", steps=steps)
    assert [s.steps for s in pool.snapshots] == [30, 40, 50]
    assert {p.name for p in _draw(pool, 500)} == {"snapshot@30", "snapshot@40", "snapshot@50"}
    assert pool.size == 3


def test_play_latest_ratio_sets_the_share_of_the_newest_snapshot(toy):
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0, window=4, play_latest_ratio=0.6)
    for steps in (1, 2, 3, 4):
        pool.add_snapshot(_weights(seed=steps), "tanh", steps=steps)
    counts = Counter(p.steps for p in _draw(pool))
    # newest: 0.6 + 0.4 / 4 = 0.7; each older one: 0.1
    assert abs(counts[4] / 4000 - 0.7) < 0.03
    assert all(abs(counts[s] / 4000 - 0.1) < 0.02 for s in (1, 2, 3))


def test_heuristic_anchor_needs_a_registered_bot(toy):
    with pytest.raises(ConfigError, match="toy_v0/heuristic cannot be loaded.*set selfplay.heuristic_weight: 0"):
        OpponentPool(toy, heuristic_weight=0.2)


def test_gate_waits_for_enough_games_then_compares_the_win_rate():
    gate = WinRateGate(0.55, episodes=50)
    for _ in range(10):
        gate.record(1.0)
    assert not gate.open()  # ten games are noise
    for _ in range(40):
        gate.record(0.5)
    assert gate.win_rate() == pytest.approx(0.6) and gate.open()
    for _ in range(50):
        gate.record(0.0)
    assert not gate.open()
    assert WinRateGate(0.0, 10).open()  # threshold 0 = always freeze


def test_pool_round_trips_through_pickle_and_state_dict(toy):
    pool = OpponentPool(toy, random_weight=0.1, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "relu", steps=7)
    copy = pickle.loads(pickle.dumps(pool))
    obs = np.linspace(0, 1, 32, dtype=np.float32)
    mask = np.ones(11, np.int8)
    np.testing.assert_allclose(copy.snapshots[0].logits(obs), pool.snapshots[0].logits(obs))
    fresh = OpponentPool(toy, random_weight=0.1, heuristic_weight=0.0)
    fresh.load_state_dict(pool.state_dict())
    assert fresh.snapshots[0].steps == 7
    assert fresh.snapshots[0].deterministic is False  # snapshots sample by default
    np.testing.assert_allclose(fresh.snapshots[0].logits(obs), pool.snapshots[0].logits(obs))
    assert fresh.snapshots[0].act(obs, mask, np.random.default_rng(3)) == pool.snapshots[0].act(
        obs, mask, np.random.default_rng(3))


def test_self_play_env_randomises_seats_and_reports_the_opponent_kind(toy):
    import toy_game

    pool = OpponentPool(toy, random_weight=0.5, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "tanh", steps=1)
    env = SelfPlayEnv(toy_game.raw_env(), opponent=pool)
    seats, tags = Counter(), Counter()
    for seed in range(60):
        _, info = env.reset(seed=seed)
        seats[info["learner_seat"]] += 1
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, info = env.step(int(legal[0]))
            done = term or trunc
        tags.update(info["opponent_tags"])
    assert seats[0] > 15 and seats[1] > 15
    assert tags[RANDOM] > 10 and tags[SNAPSHOT] > 10


def test_learner_score_is_the_mean_pair_score_against_the_seats_named():
    assert learner_score([1, -1], 0, [1]) == 1.0
    assert learner_score([1, -1], 1, [0]) == 0.0
    assert learner_score([0, 0], 1, [0]) == 0.5
    assert learner_score([0.5, 1.0, -1.0], 1, [0, 2]) == 1.0
    assert learner_score([1.0, 1.0, -1.0], 0, [1, 2]) == 0.75
    assert learner_score([1.0, 0.0, -1.0, 0.0], 1, [2, 3]) == 0.75  # second of four: beat one, tied one


def test_a_learner_second_at_the_table_scores_1_against_the_snapshots_it_beat_and_0_against_the_heuristic():
    # at four seats "won the table" gave 0 to both: the gate never saw the learner beat its snapshots
    info = {"returns": [-1 / 3, 1.0, -1.0, 1 / 3], "learner_seat": 3,
            "opponent_tags": [SNAPSHOT, HEURISTIC, SNAPSHOT, None]}
    assert episode_scores(info) == {SNAPSHOT: 1.0, HEURISTIC: 0.0}


def test_the_gate_scores_the_rules_result_not_returns_a_reward_option_shapes():
    # Earth's reward="vp_margin" returns tie on equal VP where the rules' tiebreakers name a winner: the
    # gate scored such a game 0.5 (found by the reward audit); it reads the standings the env hands out
    info = {"returns": [0.0, 0.0], "standings": [-1.0, 1.0], "learner_seat": 1, "opponent_tags": [SNAPSHOT, None]}
    assert episode_scores(info) == {SNAPSHOT: 1.0}


def test_a_finished_episode_hands_out_the_rules_standings_beside_the_returns():
    from tabletop_envs.core.single_agent import SingleAgentEnv

    env = SingleAgentEnv("earth_v0", opponent="earth_v0/random", num_players=3, reward="vp_margin")
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    assert term
    state = env.game_state
    assert info["standings"] == state.standings().tolist() and info["returns"] == state.returns().tolist()
    assert sorted(info["standings"]) == [-1.0, 0.0, 1.0]  # ranks, where the returns are VP margins
    assert sorted(info["returns"]) != [-1.0, 0.0, 1.0]


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0", "earth_v0"])
def test_an_episode_ended_by_the_illegal_move_penalty_scores_as_the_loss_it_is(env_name):
    # the penalty ends the episode before the rules' end, so the state's standings are all zeros: handed out
    # as the standings, the gate scored the learner's illegal move a draw (0.5) instead of a loss
    from tabletop_envs.core.single_agent import SingleAgentEnv

    env = SingleAgentEnv(env_name, illegal_action="penalty", learner_seat=0)
    env.reset(seed=0)
    _, reward, term, _, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert term and reward == -1.0 and not env.game_state.is_terminal()
    assert info["standings"] == info["returns"] == [-1.0, 1.0]
    assert episode_scores({**info, "opponent_tags": [None, SNAPSHOT]}) == {SNAPSHOT: 0.0}


def test_a_learner_as_strong_as_its_opponents_scores_about_half_at_three_seats(monkeypatch):
    # the gate's threshold (0.5 by default) means "as strong as the snapshots" at any number of seats
    import three_seat_game

    three_seat_game.register(monkeypatch)
    env = SelfPlayEnv(three_seat_game.raw_env(), opponent=OpponentPool("picks_v0", random_weight=1.0,
                                                                       heuristic_weight=0.0))
    rng, scores, won_table = np.random.default_rng(0), [], []
    for seed in range(1000):
        env.reset(seed=seed)
        done = False
        while not done:  # the learner picks at random, as its random opponents do
            _, _, term, trunc, info = env.step(int(rng.integers(3)))
            done = term or trunc
        scores.append(episode_scores(info)[RANDOM])
        mine, best = info["returns"][info["learner_seat"]], max(info["returns"])
        won_table.append(0.0 if mine < best else 1.0 if list(info["returns"]).count(best) == 1 else 0.5)
    assert abs(np.mean(scores) - 0.5) < 0.04
    assert np.mean(won_table) < 0.42  # the table-win score the gate used: about 1/3 at three seats


def test_snapshot_is_an_mlp_policy_that_plays_legal_moves(toy):
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    snap = pool.add_snapshot(_weights(), "tanh", steps=3)
    assert isinstance(snap, MLPPolicy)
    rng = np.random.default_rng(1)
    for _ in range(200):
        mask = (rng.random(11) < 0.3).astype(np.int8)
        mask[rng.integers(11)] = 1
        assert mask[snap.act(rng.random(32).astype(np.float32), mask, rng)] == 1


def test_a_snapshot_stays_frozen_while_the_learner_trains_on(toy):
    import torch
    import toy_game

    from training.export import mlp_weights
    from training.masked_policy import FastMaskablePolicy

    env = SelfPlayEnv(toy_game.raw_env())
    learner = FastMaskablePolicy(env.observation_space, env.action_space, net_arch=[8], lr_schedule=lambda _: 1e-3)
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    snap = pool.add_snapshot(*mlp_weights(learner), steps=0)
    frozen = [(w.copy(), b.copy()) for w, b in snap.layers]
    with torch.no_grad():  # the optimiser updates the learner's weights in place
        for weight in learner.parameters():
            weight.add_(1.0)
    for (w, b), (w0, b0) in zip(snap.layers, frozen):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)


def test_set_weights_moves_the_draws_and_loads_the_heuristic_when_it_first_gets_a_share():
    pool = OpponentPool("terralore_v0", random_weight=1.0, heuristic_weight=0.0)
    assert pool.heuristic is None
    pool.set_weights(0.0, 1.0)
    rng = np.random.default_rng(0)
    assert {pool(rng).pool_tag for _ in range(50)} == {"heuristic"}
    with pytest.raises(ValueError, match="<= 1"):
        pool.set_weights(0.6, 0.6)


def test_pool_size_counts_the_heuristic_only_while_it_has_a_share():
    pool = OpponentPool("terralore_v0", random_weight=0.5, heuristic_weight=0.5)
    assert pool.size == 2
    pool.set_weights(0.5, 0.0)  # a phase that drops the heuristic: it stays loaded but is never drawn
    assert pool.size == 1


def test_with_no_anchor_share_and_no_snapshot_yet_the_random_anchor_plays(toy):
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    assert pool.probabilities() == {RANDOM: 1.0, HEURISTIC: 0.0, SNAPSHOT: 0.0}
    assert {p.pool_tag for p in _draw(pool, 50)} == {RANDOM}


def test_the_shares_of_anchors_and_snapshots_sum_to_one():
    pool = OpponentPool("terralore_v0", random_weight=0.2, heuristic_weight=0.3)
    assert pool.probabilities() == pytest.approx({RANDOM: 0.4, HEURISTIC: 0.6, SNAPSHOT: 0.0})
    pool.add_snapshot(_weights(), "tanh", steps=1)
    assert pool.probabilities() == pytest.approx({RANDOM: 0.2, HEURISTIC: 0.3, SNAPSHOT: 0.5})
    tags = Counter(p.pool_tag for p in _draw(pool))
    assert {tag: tags[tag] / 4000 for tag in (RANDOM, HEURISTIC, SNAPSHOT)} == pytest.approx(
        {RANDOM: 0.2, HEURISTIC: 0.3, SNAPSHOT: 0.5}, abs=0.03)


def test_an_argmax_snapshot_stays_argmax_through_the_state_dict(toy):
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "tanh", steps=5, deterministic=True)
    fresh = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    fresh.load_state_dict(pickle.loads(pickle.dumps(pool.state_dict())))
    assert fresh.snapshots[0].deterministic is True and fresh.snapshots[0].activation == "tanh"


# twenty games suffice, the window need not fill first; a window under twenty games (selfplay.gate_episodes
# "waits for min(20, this)") judges once it is full, where waiting for twenty never opened it
@pytest.mark.parametrize("episodes, judged_after", [(100, 20), (5, 5)])
def test_gate_judges_after_twenty_games_or_a_shorter_window_once_full(episodes, judged_after):
    gate = WinRateGate(0.5, episodes=episodes)
    for _ in range(judged_after - 1):
        gate.record(1.0)
    assert not gate.open()
    gate.record(1.0)
    assert gate.open()


def test_gate_opens_at_a_score_equal_to_its_threshold():
    gate = WinRateGate(0.5, episodes=20)
    for score in [1.0, 0.0] * 10:
        gate.record(score)
    assert gate.win_rate() == 0.5 and gate.open()
    gate.record(0.0)  # the oldest win leaves the window: 9 / 20 < 0.5
    assert gate.win_rate() == pytest.approx(0.45) and not gate.open()


def test_a_reset_gate_waits_for_new_games_against_the_new_snapshot():
    gate = WinRateGate(0.5, episodes=20)
    for _ in range(20):
        gate.record(1.0)
    assert gate.open()
    gate.reset()
    assert not gate.open() and np.isnan(gate.win_rate())


def test_a_fixed_opponent_holds_its_share_of_the_seats_under_its_anchor_name():
    pool = OpponentPool("terralore_v0", random_weight=0.2, heuristic_weight=0.0, opponents={"terralore_v0/ppo": 0.5})
    # before any snapshot the anchors and fixed opponents share the whole mass, in proportion
    assert pool.probabilities() == pytest.approx({RANDOM: 0.2 / 0.7, HEURISTIC: 0.0, "terralore_v0_ppo": 0.5 / 0.7,
                                                  SNAPSHOT: 0.0})
    pool.add_snapshot(_weights(n_obs=pool.fixed["terralore_v0_ppo"].observation_size,
                               n_act=pool.fixed["terralore_v0_ppo"].num_actions), "tanh", steps=1)
    tags = Counter(p.pool_tag for p in _draw(pool))
    assert {tag: n / 4000 for tag, n in tags.items()} == pytest.approx(
        {RANDOM: 0.2, "terralore_v0_ppo": 0.5, SNAPSHOT: 0.3}, abs=0.03)
    assert pool.size == 3
    shipped = pool.fixed["terralore_v0_ppo"]
    assert shipped.metadata["env_id"] == "terralore_v0" and shipped.pool_spec == "terralore_v0/ppo"


def test_fixed_opponents_hold_their_share_beside_a_heuristic_share():
    # the shipped Travel Earth recipe has both: the heuristic's share was left in the mass the fixed opponents
    # were drawn from, which gave most of their seats to the snapshots
    pool = OpponentPool("terralore_v0", random_weight=0.1, heuristic_weight=0.2, opponents={"terralore_v0/ppo": 0.3})
    shipped = pool.fixed["terralore_v0_ppo"]
    pool.add_snapshot(_weights(n_obs=shipped.observation_size, n_act=shipped.num_actions), "tanh", steps=1)
    shares = {RANDOM: 0.1, HEURISTIC: 0.2, "terralore_v0_ppo": 0.3, SNAPSHOT: 0.4}
    assert pool.probabilities() == pytest.approx(shares)
    tags = Counter(p.pool_tag for p in _draw(pool))
    assert {tag: n / 4000 for tag, n in tags.items()} == pytest.approx(shares, abs=0.03)


def test_two_fixed_opponents_are_each_drawn_at_their_own_share():
    pool = OpponentPool("travel_earth_v0", random_weight=0.2, heuristic_weight=0.0,
                        opponents={"travel_earth_v0/staller": 0.4, "travel_earth_v0/exploiter": 0.4})
    shares = {RANDOM: 0.2, HEURISTIC: 0.0, "travel_earth_v0_staller": 0.4, "travel_earth_v0_exploiter": 0.4,
              SNAPSHOT: 0.0}
    assert pool.probabilities() == pytest.approx(shares)
    tags = Counter(p.pool_tag for p in _draw(pool))
    # the second fixed opponent's draws went to the first one
    assert {tag: tags[tag] / 4000 for tag in shares} == pytest.approx(shares, abs=0.03)


def test_a_fixed_opponent_without_a_share_is_not_counted_in_the_pool():
    # a phase that drops an opponent sets its share to 0; the logged pool size is of the opponents drawn
    pool = OpponentPool("terralore_v0", 1.0, 0.0, opponents={"terralore_v0/ppo": 0.0})
    assert pool.size == 1 and pool.opponents == {}


def test_the_pool_draws_exactly_as_before_when_no_fixed_opponent_is_named():
    # a seeded run's opponents (and so its weights) stay those of runs trained before the key existed
    pool = OpponentPool("terralore_v0", random_weight=0.2, heuristic_weight=0.3, opponents={})
    pool.add_snapshot(_weights(), "tanh", steps=1)
    pool.add_snapshot(_weights(seed=1), "tanh", steps=2)
    rng, draws = np.random.default_rng(5), []
    for _ in range(300):
        u = rng.random()
        draws.append(RANDOM if u < 0.2 else HEURISTIC if u < 0.5 else
                     2 if rng.random() < pool.play_latest_ratio else 1 + int(rng.integers(2)))
    got = [p.pool_tag if p.pool_tag != SNAPSHOT else p.steps for p in _draw(pool, 300, seed=5)]
    assert got == draws


def test_fixed_opponents_pickle_to_the_workers_with_their_tags_and_shares():
    pool = OpponentPool("terralore_v0", random_weight=0.0, heuristic_weight=0.0, opponents={"terralore_v0/ppo": 1.0})
    copy = pickle.loads(pickle.dumps(pool))
    assert {p.pool_tag for p in _draw(copy, 50)} == {"terralore_v0_ppo"}


@pytest.mark.parametrize("spec, message", [
    ("terralore_v0/nosuch", "'terralore_v0/nosuch' cannot play terralore_v0 .*no policy registered"),
    ("earth_v0/ppo", "'earth_v0/ppo' cannot play terralore_v0 .*plays earth_v0"),
    ("runs/nowhere/ppo.onnx", "'runs/nowhere/ppo.onnx' cannot play terralore_v0 .*no model at"),
    ("random", "names 'random', which has its own share: set selfplay.random_weight instead"),
    ("terralore_v0/heuristic", "has its own share: set selfplay.heuristic_weight instead"),
    ("runs/a/snapshot.onnx", "would be logged as selfplay/win_rate_vs_snapshot, the pool's own snapshot"),
    # the anchors named with the game's prefix are told which weight to set, as the bare names are
    ("terralore_v0/random", "names 'terralore_v0/random', which has its own share: set selfplay.random_weight"),
    ("runs/a/heuristic.onnx", "would be logged as selfplay/win_rate_vs_heuristic, the pool's own heuristic"),
])
def test_a_fixed_opponent_that_cannot_play_or_would_hide_another_s_results_is_refused_naming_it(spec, message):
    with pytest.raises(ConfigError, match=f"selfplay.opponents.*{message}"):
        OpponentPool("terralore_v0", random_weight=0.0, heuristic_weight=0.0, opponents={spec: 0.5})


def test_two_fixed_opponents_under_one_name_are_refused():
    with pytest.raises(ConfigError, match="would both be reported as vs_ppo"):
        OpponentPool("terralore_v0", 0.0, 0.0, opponents={"models/terralore/ppo.onnx": 0.2, "runs/x/ppo.onnx": 0.2})


def test_set_weights_gives_a_phase_s_fixed_opponents_their_shares_and_keeps_them_when_not_named():
    pool = OpponentPool("terralore_v0", random_weight=1.0, heuristic_weight=0.0)
    assert pool.fixed == {} and pool.size == 1
    pool.set_weights(0.5, 0.0, {"terralore_v0/ppo": 0.5})
    assert pool.probabilities()["terralore_v0_ppo"] == pytest.approx(0.5) and pool.size == 2
    pool.set_weights(0.4, 0.0)  # a phase that changes only random_weight keeps the opponents' shares
    assert pool.opponents == {"terralore_v0/ppo": 0.5}
    pool.set_weights(1.0, 0.0, {})  # dropped: loaded still, never drawn
    assert {p.pool_tag for p in _draw(pool, 50)} == {RANDOM} and pool.size == 1
    with pytest.raises(ValueError, match="the opponents' shares must be <= 1"):
        pool.set_weights(0.6, 0.0, {"terralore_v0/ppo": 0.6})


def test_the_snapshots_share_is_never_negative_when_the_anchors_shares_round_past_one(toy):
    # set_weights lets the shares exceed 1 by rounding (1e-9): the snapshots then get nothing, not a negative share
    pool = OpponentPool(toy, random_weight=1.0 + 5e-10, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "tanh", steps=1)
    assert pool.probabilities()[SNAPSHOT] == 0.0


def test_shares_past_one_by_more_than_rounding_are_refused():
    pool = OpponentPool("terralore_v0", random_weight=0.7, heuristic_weight=0.3)
    pool.set_weights(0.1 + 0.2, 0.7)  # 1.0000000000000002: rounding, not a recipe error
    with pytest.raises(ValueError, match="<= 1"):
        pool.set_weights(0.5, 0.51)


def test_loading_a_state_dict_replaces_the_snapshots_the_pool_held(toy):
    # a resumed run's pool holds the checkpoint's window, not the checkpoint's snapshots after any it had already
    saved = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    saved.add_snapshot(_weights(seed=2), "tanh", steps=2)
    pool = OpponentPool(toy, random_weight=0.0, heuristic_weight=0.0)
    pool.add_snapshot(_weights(seed=1), "tanh", steps=1)
    pool.load_state_dict(saved.state_dict())
    assert [s.steps for s in pool.snapshots] == [2]


class _TopOfTheUnitInterval:
    """A generator whose every draw is the largest float below 1: it lands in any sliver the shares leave."""

    def random(self):
        return float(np.nextafter(1.0, 0.0))


def test_a_draw_past_the_rounded_anchor_shares_without_snapshots_falls_to_the_random_anchor():
    pool = OpponentPool("terralore_v0", random_weight=0.01, heuristic_weight=0.04)
    shares = pool.probabilities()
    # 0.01 / 0.05 + 0.04 / 0.05 rounds to just under 1, so the top draw lands past both anchors
    assert shares[RANDOM] + shares[HEURISTIC] <= _TopOfTheUnitInterval().random()
    assert pool(_TopOfTheUnitInterval()).pool_tag == RANDOM


def test_a_phase_that_names_a_loaded_fixed_opponent_again_keeps_the_one_loaded():
    # set_weights runs at every phase change: reloading would swap in whatever the file holds by then
    pool = OpponentPool("terralore_v0", random_weight=0.2, heuristic_weight=0.0, opponents={"terralore_v0/ppo": 0.5})
    loaded = pool.fixed["terralore_v0_ppo"]
    pool.set_weights(0.1, 0.0, {"terralore_v0/ppo": 0.3})
    assert pool.fixed["terralore_v0_ppo"] is loaded and pool.opponents == {"terralore_v0/ppo": 0.3}


def test_a_heuristic_bot_without_a_name_is_named_heuristic(monkeypatch):
    # a bot's own name is kept (reports show it), but one without a name would be reported by its class name
    import training.pool

    class Nameless:
        def act(self, obs, mask, rng):
            return int(np.flatnonzero(mask)[0])

    monkeypatch.setattr(training.pool, "load_policy", lambda *args, **kwargs: Nameless())
    pool = OpponentPool("terralore_v0", random_weight=0.0, heuristic_weight=1.0)
    assert pool.heuristic.name == "heuristic" and pool.heuristic.pool_tag == HEURISTIC


def test_the_heuristic_is_loaded_once_however_many_phases_give_it_a_share(monkeypatch):
    # as a fixed opponent named again: a phase change keeps the bot loaded, not a fresh one each time
    import training.pool

    loads = []
    real = training.pool.load_policy
    monkeypatch.setattr(training.pool, "load_policy", lambda *a, **k: loads.append(a) or real(*a, **k))
    pool = OpponentPool("terralore_v0", random_weight=0.5, heuristic_weight=0.5)
    bot = pool.heuristic
    pool.set_weights(0.2, 0.8)
    pool.set_weights(0.5, 0.0)
    pool.set_weights(0.0, 1.0)
    assert len(loads) == 1 and pool.heuristic is bot


def test_with_a_single_snapshot_a_draw_takes_one_number_from_the_generator(toy):
    # no play-latest coin is tossed between one snapshot and itself: a seeded run's later draws stay put
    pool = OpponentPool(toy, random_weight=0.5, heuristic_weight=0.0)
    pool.add_snapshot(_weights(), "tanh", steps=1)
    rng = np.random.default_rng(5)
    expected = [RANDOM if rng.random() < 0.5 else SNAPSHOT for _ in range(300)]
    assert [p.pool_tag for p in _draw(pool, 300, seed=5)] == expected


def test_a_phase_naming_another_model_under_a_loaded_opponents_name_is_refused(tmp_path):
    # each phase's opponents pass the recipe's check alone; a later phase's other ppo.onnx was dropped as "loaded"
    # and the pool played the first one in its place, logging both under vs_ppo
    import shutil
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[2] / "models" / "terralore"
    (tmp_path / "other").mkdir()
    for suffix in (".onnx", ".npz", ".json"):
        shutil.copy(shipped / f"ppo{suffix}", tmp_path / "other" / f"ppo{suffix}")
    pool = OpponentPool("terralore_v0", 0.5, 0.0, opponents={str(shipped / "ppo.onnx"): 0.5})
    loaded = pool.fixed["ppo"]
    with pytest.raises(ConfigError, match="would both be reported as vs_ppo"):
        pool.load_opponents([str(tmp_path / "other" / "ppo.onnx")])
    with pytest.raises(ConfigError, match="would both be reported as vs_ppo"):
        pool.set_weights(0.5, 0.0, {str(tmp_path / "other" / "ppo.onnx"): 0.5})
    assert pool.fixed == {"ppo": loaded} and pool.opponents == {str(shipped / "ppo.onnx"): 0.5}


class _Tagged:
    def __init__(self, tag, pick):
        self.pool_tag, self.pick = tag, pick

    def act(self, obs, mask, rng):
        return self.pick


def test_at_a_larger_table_each_opponent_seat_is_scored_under_its_own_opponents_kind(monkeypatch):
    # found by a seat audit: every seat tagged with the first opponent's kind passed at two seats, where there is
    # one opponent; the learner beat the heuristic and lost to its snapshot, and was scored 0.5 against snapshots
    import three_seat_game

    three_seat_game.register(monkeypatch)
    env = SelfPlayEnv(three_seat_game.raw_env(), opponent=[_Tagged(SNAPSHOT, 2), _Tagged(HEURISTIC, 0)],
                      learner_seat=1)
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(1)
    assert terminated and info["returns"] == [2.0, 1.0, 0.0]
    assert info["opponent_tags"] == [SNAPSHOT, None, HEURISTIC]
    assert episode_scores(info) == {SNAPSHOT: 0.0, HEURISTIC: 1.0}


def test_a_policy_whose_name_is_read_only_joins_the_pool_keeping_its_name():
    # a user's policy class may make `name` a property: setting it raised AttributeError
    from training.pool import _tagged

    class Named:
        name = property(lambda self: "mine")

    policy = _tagged(Named(), "fixed:mine", "fixed:mine")
    assert policy.pool_tag == "fixed:mine" and policy.name == "mine"
