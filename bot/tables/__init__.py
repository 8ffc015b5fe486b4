"""Tables: the registry of live tables, lobbies and the rules menu, play and its
durability, the turn clock, the screens each chat shows, and the standings texts."""
