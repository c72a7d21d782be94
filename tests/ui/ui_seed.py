"""What the /ui page tests seed and sign in with (a module of its own: tests/api has a conftest too)."""

KEY = "ui-secret-7d1f"
XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> backup notes'
SEED = [
    {"id": "deploy-1", "content": "The deploy pipeline runs on GitHub Actions and pushes images to the registry",
     "tags": ["deploy", "ci"], "category": "infra", "source": "MEMORY.md"},
    {"id": "deploy-2", "content": "Staging deploys run nightly from the main branch through GitHub Actions",
     "tags": ["deploy"], "category": "infra", "source": "memory_tool"},
    {"id": "prefs-1", "content": "The user prefers dark mode in every editor and terminal",
     "tags": ["preferences"], "category": "user", "source": "USER.md"},
    {"id": "db-1", "content": "The primary Postgres database is backed up every six hours to object storage",
     "tags": ["database", "backup"], "category": "infra", "source": "memory_tool"},
    {"id": "chat-1", "content": "We agreed to move the weekly sync to Thursday afternoons", "thread": "standup",
     "seq": 1},
    {"id": "chat-2", "content": "The Thursday sync will start at three and last half an hour", "thread": "standup",
     "seq": 2},
    {"id": "chat-0", "content": "Kickoff: who should run the weekly sync from now on?", "thread": "standup",
     "seq": 0},                                  # written last, first in the thread
    {"id": "xss-1", "content": XSS, "tags": ["<img src=x onerror=window.__pwned=3>"],
     "category": "<script>window.__pwned=4</script>"},
]
