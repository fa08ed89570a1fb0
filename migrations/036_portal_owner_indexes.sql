-- The portal sessions and the unused portal links of one owner, for ending a tenant's portal
-- sessions and links at once (shared/accounts/portal-links.ts `endPortalSessions`): each is found
-- through its owner rather than by reading every session or link. Users' sessions and spent links
-- are left out of the indexes: nothing looks them up by owner.
create index if not exists app_sessions_portal_owner on app_sessions (portal_owner)
  where portal_owner is not null;
create index if not exists app_portal_links_owner_unused on app_portal_links (owner)
  where used_at is null;
