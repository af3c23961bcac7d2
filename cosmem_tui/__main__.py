from cosmem_tui.cli import main

raise SystemExit(main())
