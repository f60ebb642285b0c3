# FRONTIER_SANITIZE=ON builds everything with ASan + UBSan (CI runs the tests both ways).
if(FRONTIER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
