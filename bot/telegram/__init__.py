"""Everything that knows Telegram's wire: handlers, callback data, the outbox and its pacing,
polling, the webhook and the health endpoint."""
