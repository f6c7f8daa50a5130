# fcl: FCL 0.7 (C++): fcl::continuousCollide of two Spheres, naive sampling and conservative advancement.
ENGINE_APT := libfcl-dev
ENGINE_PC := fcl
