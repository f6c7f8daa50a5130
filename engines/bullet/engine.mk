# bullet: Bullet 3's convex casts, Debian's float build (bullet.pc).
ENGINE_APT := libbullet-dev
ENGINE_PC := bullet
