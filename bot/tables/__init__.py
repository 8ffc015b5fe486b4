"""A table's own life: its model and registry, play, the turn clock, who is present, one
seat per person, closing, its settings, and the desk the tournaments use."""
