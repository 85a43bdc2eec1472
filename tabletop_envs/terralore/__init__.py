"""Terralore: the card game of lanes and castles (two players, 20-card singleton decks)."""
