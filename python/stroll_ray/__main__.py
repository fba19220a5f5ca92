from .driver import main
import sys
sys.exit(main())
