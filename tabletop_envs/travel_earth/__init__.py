"""Travel Earth TCG: catalogue, rules engine, PettingZoo env and heuristic bot."""
