# SPDX-License-Identifier: Apache-2.0
# What `make install` (cmake --install) puts where, in the GNU layout
# (GNUInstallDirs: a prefix of /usr puts the libraries in the multiarch
# folder, /usr/lib/x86_64-linux-gnu on Debian):
#   bin/agentmem                          the CLI (the library linked in)
#   lib/libagentmem.so.0.1.0, .so.0, .so  the shared library (soname .so.0)
#   lib/libagentmem.a                     the static library
#   lib/pkgconfig/agentmem.pc             cflags and libs, static ones too
#   include/agentmem.h (+ agentmem_knobs.h), agentmem_ops.h
#   share/man/man1/agentmem.1
#   share/agentmem/models/use-lite/       the encoder, when fetched
#   share/agentmem/packs/examples/*.json  the example rule packs
#   share/doc/agentmem/                   LICENSE, NOTICE, README.md,
#                                         examples/agentmem.service
include(GNUInstallDirs)

# The data folder, compiled into the library and the CLI: where the encoder
# and the packs are looked for once installed.
set(AM_DATADIR "${CMAKE_INSTALL_FULL_DATADIR}/agentmem")
target_compile_definitions(agentmem_obj PRIVATE AM_DATADIR="${AM_DATADIR}")
target_compile_definitions(agentmem PRIVATE AM_DATADIR="${AM_DATADIR}")

# The shared library's ABI number is its own: it changes when the ABI
# breaks, not with every version.
set_target_properties(agentmem_shared PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)

install(TARGETS agentmem RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS agentmem_shared agentmem_static
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB AM_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/*.h)
install(FILES ${AM_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# agentmem.pc.  Libs.private lists, as -l flags, the libraries the library
# itself links (AM_LIBS, the line the targets above use): what a static
# link of libagentmem.a needs besides it.  They are not Requires.private
# modules: pkg-config refuses a module whose Requires.private .pc files are
# missing even for a dynamic link, and those come only with each library's
# -dev package.
set(AM_PC_LIBS_PRIVATE "")
foreach(lib ${AM_LIBS})
  if(lib STREQUAL "pthread")
    set(flag "-pthread")
  elseif(IS_ABSOLUTE "${lib}")
    get_filename_component(name "${lib}" NAME_WE)
    string(REGEX REPLACE "^lib" "" name "${name}")
    set(flag "-l${name}")
  else()
    set(flag "-l${lib}")
  endif()
  list(FIND AM_PC_FLAGS "${flag}" seen)
  if(seen EQUAL -1)
    list(APPEND AM_PC_FLAGS "${flag}")
    string(APPEND AM_PC_LIBS_PRIVATE " ${flag}")
  endif()
endforeach()
string(STRIP "${AM_PC_LIBS_PRIVATE}" AM_PC_LIBS_PRIVATE)
configure_file(${CMAKE_SOURCE_DIR}/packaging/agentmem.pc.in ${CMAKE_BINARY_DIR}/agentmem.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/agentmem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${CMAKE_SOURCE_DIR}/docs/man/agentmem.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The encoder's weights (scripts/fetch-model.sh), when fetched: `make`
# configures again every time, so a fetch before `make install` counts.
if(EXISTS ${CMAKE_SOURCE_DIR}/models/use-lite/model.json)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/models/use-lite/
          DESTINATION ${CMAKE_INSTALL_DATADIR}/agentmem/models/use-lite
          FILES_MATCHING PATTERN "model.json" PATTERN "vocab.json" PATTERN "group1-shard*")
endif()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/packs/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/agentmem/packs/examples
        FILES_MATCHING PATTERN "*.json")

install(FILES ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/NOTICE ${CMAKE_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
configure_file(${CMAKE_SOURCE_DIR}/packaging/systemd/agentmem.service.in
               ${CMAKE_BINARY_DIR}/agentmem.service @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/agentmem.service DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
