"""What was played, counted: ``/scores``, ``/stats``, ``/rules`` and ``/rating``."""
