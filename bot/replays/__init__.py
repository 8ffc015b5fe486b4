"""Replays in the chat: a group's finished games, their hands, one hand as text."""
