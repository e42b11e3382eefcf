"""Chess domain pack: spoken moves to legal moves, lines through a lesson, ECO openings, engine evaluation."""
