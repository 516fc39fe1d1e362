{
  "targets": [
    {
      "target_name": "auditstorm",
      "sources": ["native/scan.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-Wall", "-Wextra"]
    }
  ]
}
