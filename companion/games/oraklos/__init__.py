"""Oraklos (RULES.md §3): coloured dice thrown on the table, wish cards, true predictions."""
