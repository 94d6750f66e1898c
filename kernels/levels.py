"""AI level numbers shared by the AI kernels and the Python layer (RULES.md §6)."""
BEGINNER = 0
EASY = 1
NORMAL = 2
EXPERT = 3
MASTER = 4
NAMES = ("beginner", "easy", "normal", "expert", "master")
