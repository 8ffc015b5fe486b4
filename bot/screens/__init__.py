"""What each chat shows of a table, made as data: the screens, their parts and buttons."""
