"""The computer players' worker pool and the coach that borrows it for hints and reviews."""
