# bullet64: the bullet adapter's source built against Debian's double build
# (bullet-float64.pc, shipped by libbullet-dev, defines BT_USE_DOUBLE_PRECISION).
ENGINE_APT := libbullet-dev
ENGINE_SRC := engines/bullet/adapter.cpp
ENGINE_PC := bullet-float64
