from okura.cli import main

main()
