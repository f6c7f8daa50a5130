# box2d: Box2D 2.4 (C++): b2TimeOfImpact and b2ShapeCast on circle proxies.
ENGINE_APT := libbox2d-dev
ENGINE_LIBS := -lbox2d
