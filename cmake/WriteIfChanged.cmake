# write_if_changed(PATH TEXT): writes TEXT to PATH only when it differs from what is there, so
# that generated headers do not trigger rebuilds when nothing changed.
function(write_if_changed path text)
  set(old "")
  if(EXISTS ${path})
    file(READ ${path} old)
  endif()
  if(NOT "${old}" STREQUAL "${text}")
    file(WRITE ${path} "${text}")
  endif()
endfunction()
