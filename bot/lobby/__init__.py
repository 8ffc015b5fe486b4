"""Opening a table: the lobby and its seats, the rules menu, and ``/start`` links."""
