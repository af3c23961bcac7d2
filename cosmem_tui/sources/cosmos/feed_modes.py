"""What the all-versions-and-deletes change feed needs, said once: the tail's
``FeedUnavailable`` and ``cosmem doctor`` (``feed.all_versions``) name the same fix.

Plain text, no SDK: the doctor loads it on a local workspace too.
"""

from __future__ import annotations

from typing import Final

# Learn "Change feed modes": the mode needs continuous backup and the account's
# all-versions setting, and is not available on accounts with partition merge enabled.
ALL_VERSIONS_FIX: Final = (
    "turn on continuous backup for the account, then its all-versions-and-deletes change "
    "feed setting (enableAllVersionsAndDeletesChangeFeed); not available on accounts with "
    "partition merge enabled"
)
RETENTION_FIX: Final = "start the tail again from now"
